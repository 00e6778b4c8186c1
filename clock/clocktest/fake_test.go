package clocktest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock/clocktest"
)

func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestFakeClock(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		timer   time.Duration
		advance []time.Duration
		stop    bool
		fires   bool
		pending int
	}{
		{name: "not yet due", timer: time.Minute, advance: []time.Duration{59 * time.Second}, pending: 1},
		{name: "due exactly", timer: time.Minute, advance: []time.Duration{time.Minute}, fires: true},
		{name: "due in steps", timer: time.Minute, advance: []time.Duration{30 * time.Second, 30 * time.Second}, fires: true},
		{name: "zero fires at once", timer: 0, fires: true},
		{name: "negative fires at once", timer: -time.Second, fires: true},
		{name: "stopped never fires", timer: time.Second, stop: true, advance: []time.Duration{time.Hour}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clocktest.New(start)
			timer := c.NewTimer(tc.timer)
			assert.Equal(t, tc.timer, <-c.Timers(), "every timer is announced")
			if tc.stop {
				assert.True(t, timer.Stop())
				assert.False(t, timer.Stop(), "a second Stop reports false")
			}
			var total time.Duration
			for _, d := range tc.advance {
				c.Advance(d)
				total += d
			}
			assert.Equal(t, start.Add(total), c.Now())
			assert.Equal(t, tc.fires, fired(timer.C()))
			assert.Equal(t, tc.pending, c.Pending())
		})
	}
}

func TestFakeClockSetAndZero(t *testing.T) {
	c := clocktest.New(time.Time{})
	require.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), c.Now(), "a zero start is a fixed date")
	timer := c.NewTimer(time.Hour)
	c.Set(c.Now().Add(2 * time.Hour))
	assert.True(t, fired(timer.C()))
	c.Set(c.Now().Add(-time.Hour)) // time may go back
	assert.Equal(t, time.Date(2026, 1, 2, 4, 4, 5, 0, time.UTC), c.Now())
}

func TestFakeClockTimersDoNotBlock(t *testing.T) {
	c := clocktest.New(time.Time{})
	for range 2000 { // more than the announcement buffer
		c.NewTimer(time.Second)
	}
	assert.Equal(t, 2000, c.Pending())
}

func ExampleFakeClock() {
	c := clocktest.New(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	timer := c.NewTimer(time.Minute)
	c.Advance(30 * time.Second)
	fmt.Println("after 30s:", fired(timer.C()))
	c.Advance(30 * time.Second)
	fmt.Println("after 60s:", fired(timer.C()), c.Now().Format(time.TimeOnly))
	// Output:
	// after 30s: false
	// after 60s: true 12:01:00
}
