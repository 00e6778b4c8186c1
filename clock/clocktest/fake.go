// Package clocktest provides [FakeClock], a [clock.Clock] whose time moves
// only when a test says so.
package clocktest

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zonesync/zonesync/clock"
)

// FakeClock is a manual [clock.Clock]: time moves only with [FakeClock.Advance]
// or [FakeClock.Set], and timers fire when the time reaches them. Every
// NewTimer is announced on [FakeClock.Timers], so a test can wait until the
// code under test blocks on a timer. It is safe for concurrent use.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	pending []*fakeTimer
	timers  chan time.Duration
}

var _ clock.Clock = (*FakeClock)(nil)

// New returns a FakeClock set to now. A zero now means
// 2026-01-02T03:04:05Z, so that tests do not depend on the real time.
func New(now time.Time) *FakeClock {
	if now.IsZero() {
		now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	return &FakeClock{now: now, timers: make(chan time.Duration, 1024)}
}

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that fires when the fake time reaches Now()+d
// (at once when d <= 0), and announces d on Timers (dropped when nobody
// reads and the buffer of 1024 is full).
func (c *FakeClock) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	t := &fakeTimer{c: make(chan time.Time, 1), at: c.now.Add(d)}
	if d <= 0 {
		t.c <- c.now
	} else {
		c.pending = append(c.pending, t)
	}
	c.mu.Unlock()
	select {
	case c.timers <- d:
	default:
	}
	return t
}

// Timers announces the duration of every timer made by NewTimer.
func (c *FakeClock) Timers() <-chan time.Duration { return c.timers }

// Advance moves the fake time by d and fires the timers that are due.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(c.now.Add(d))
}

// Set moves the fake time to t (it may go backwards) and fires the timers
// that are due.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLocked(t)
}

func (c *FakeClock) setLocked(t time.Time) {
	c.now = t
	c.pending = slices.DeleteFunc(c.pending, func(ft *fakeTimer) bool {
		if ft.stopped.Load() {
			return true
		}
		if !ft.at.After(c.now) {
			ft.c <- c.now
			return true
		}
		return false
	})
}

// Pending returns the number of timers that have neither fired nor been
// stopped.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.pending {
		if !t.stopped.Load() {
			n++
		}
	}
	return n
}

type fakeTimer struct {
	c       chan time.Time
	at      time.Time
	stopped atomic.Bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }
func (t *fakeTimer) Stop() bool          { return !t.stopped.Swap(true) }
