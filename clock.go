package zonesync

import "time"

// Clock is the source of time for [Reconciler.Run]. Tests inject a fake to
// drive the schedule without sleeping; nil means the real clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that sends the time on its channel once d
	// has elapsed (at once when d <= 0).
	NewTimer(d time.Duration) Timer
}

// Timer is the part of [time.Timer] that [Reconciler.Run] uses.
type Timer interface {
	// C returns the channel on which the time is delivered.
	C() <-chan time.Time
	// Stop prevents the timer from firing; see [time.Timer.Stop].
	Stop() bool
}

// realClock is the Clock backed by package time.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }
