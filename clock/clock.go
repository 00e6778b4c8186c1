// Package clock is the one source of time in zonesync: the [Clock]
// interface that the Reconciler's schedule, the TXT registry's read cache
// and blueprint's ZoneCache take, and [Real], the clock backed by package
// time. Tests drive time by hand with [clocktest.FakeClock]
// (package clock/clocktest).
//
// A nil Clock anywhere in zonesync means [Real].
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that sends the time on its channel once d
	// has elapsed (at once when d <= 0).
	NewTimer(d time.Duration) Timer
}

// Timer is the part of [time.Timer] that zonesync uses.
type Timer interface {
	// C returns the channel on which the time is delivered.
	C() <-chan time.Time
	// Stop prevents the timer from firing; see [time.Timer.Stop].
	Stop() bool
}

// Real returns the Clock backed by package time.
func Real() Clock { return realClock{} }

// OrReal returns c, or [Real] when c is nil.
func OrReal(c Clock) Clock {
	if c == nil {
		return realClock{}
	}
	return c
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }
