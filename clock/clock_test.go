package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/clock/clocktest"
)

func TestReal(t *testing.T) {
	c := clock.Real()
	before := time.Now()
	now := c.Now()
	assert.False(t, now.Before(before))

	timer := c.NewTimer(time.Millisecond)
	select {
	case <-timer.C():
	case <-time.After(5 * time.Second):
		t.Fatal("a real 1ms timer did not fire within 5s")
	}
	assert.False(t, timer.Stop(), "a fired timer cannot be stopped")

	stopped := c.NewTimer(time.Hour)
	assert.True(t, stopped.Stop())
}

func TestOrReal(t *testing.T) {
	fake := clocktest.New(time.Time{})
	for _, tc := range []struct {
		name string
		in   clock.Clock
		fake bool
	}{
		{name: "nil is the real clock", in: nil},
		{name: "a clock is kept", in: fake, fake: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := clock.OrReal(tc.in)
			require.NotNil(t, got)
			if tc.fake {
				assert.Same(t, fake, got)
			} else {
				assert.WithinDuration(t, time.Now(), got.Now(), time.Minute)
			}
		})
	}
}
