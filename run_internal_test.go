package zonesync

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBackoff(t *testing.T) {
	r := &Reconciler{Interval: 40e9, BackoffInitial: 3e9}
	var got []int64
	for n := 1; n <= 6; n++ {
		got = append(got, int64(r.backoff(n)/1e9))
	}
	assert.Equal(t, []int64{3, 6, 12, 24, 40, 40}, got)
	assert.Equal(t, DefaultBackoffInitial, (&Reconciler{}).backoff(1))
	assert.Equal(t, DefaultInterval, (&Reconciler{}).backoff(100), "capped at the interval, no overflow")
}
