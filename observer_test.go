package zonesync_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/plan"
)

type countingObserver struct{ started, finished int }

func (o *countingObserver) CycleStarted(context.Context, time.Time)       { o.started++ }
func (o *countingObserver) CycleFinished(context.Context, zonesync.Cycle) { o.finished++ }

func TestObserversNotifiesEach(t *testing.T) {
	a, b := &countingObserver{}, &countingObserver{}
	obs := zonesync.Observers(a, nil, b)
	obs.CycleStarted(context.Background(), time.Time{})
	obs.CycleFinished(context.Background(), zonesync.Cycle{})
	assert.Equal(t, countingObserver{1, 1}, *a)
	assert.Equal(t, countingObserver{1, 1}, *b)
	zonesync.Observers().CycleFinished(context.Background(), zonesync.Cycle{}) // empty: no-op
}

func TestCycleClassification(t *testing.T) {
	tests := []struct {
		name                 string
		c                    zonesync.Cycle
		succeeded, retryable bool
	}{
		{"ok", zonesync.Cycle{}, true, false},
		{"unsafe", zonesync.Cycle{Err: &plan.UnsafePlanError{Owned: 10, Deletes: 9}}, false, true},
		{"hard", zonesync.Cycle{Err: zonesync.ErrInvalidConfig}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.succeeded, tt.c.Succeeded())
			assert.Equal(t, tt.retryable, tt.c.Retryable())
		})
	}
}
