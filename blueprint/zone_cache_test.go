package blueprint_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/blueprint"
	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/clock/clocktest"
)

func TestZoneCache(t *testing.T) {
	type step struct {
		advance     time.Duration
		reset       []string // nil: no reset
		wantExpired bool
		wantGet     []string
	}
	tests := []struct {
		name  string
		ttl   time.Duration
		steps []step
	}{
		{
			name: "empty cache is expired",
			ttl:  time.Minute,
			steps: []step{
				{wantExpired: true, wantGet: nil},
			},
		},
		{
			name: "fresh until the TTL passes, then stale",
			ttl:  time.Minute,
			steps: []step{
				{reset: []string{"a.example"}, wantExpired: false, wantGet: []string{"a.example"}},
				{advance: 59 * time.Second, wantExpired: false, wantGet: []string{"a.example"}},
				{advance: time.Second, wantExpired: true, wantGet: []string{"a.example"}},
				{advance: time.Hour, wantExpired: true, wantGet: []string{"a.example"}},
				{reset: []string{"b.example"}, wantExpired: false, wantGet: []string{"b.example"}},
			},
		},
		{
			name: "reset restarts the TTL",
			ttl:  time.Minute,
			steps: []step{
				{reset: []string{"a.example"}, wantGet: []string{"a.example"}},
				{advance: 50 * time.Second, reset: []string{"a.example", "b.example"}, wantGet: []string{"a.example", "b.example"}},
				{advance: 50 * time.Second, wantExpired: false, wantGet: []string{"a.example", "b.example"}},
			},
		},
		{
			name: "zero TTL disables caching",
			ttl:  0,
			steps: []step{
				{reset: []string{"a.example"}, wantExpired: true, wantGet: nil},
			},
		},
		{
			name: "negative TTL disables caching",
			ttl:  -time.Second,
			steps: []step{
				{reset: []string{"a.example"}, wantExpired: true, wantGet: nil},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			c := blueprint.NewZoneCacheWithClock[[]string](tt.ttl, clk)
			for i, s := range tt.steps {
				clk.Advance(s.advance)
				if s.reset != nil {
					c.Reset(s.reset)
				}
				assert.Equal(t, s.wantExpired, c.Expired(), "step %d: Expired", i)
				assert.Equal(t, s.wantGet, c.Get(), "step %d: Get", i)
			}
		})
	}
}

func TestZoneCacheRealClock(t *testing.T) {
	tests := []struct {
		name string
		new  func() *blueprint.ZoneCache[int]
	}{
		{name: "NewZoneCache", new: func() *blueprint.ZoneCache[int] { return blueprint.NewZoneCache[int](time.Hour) }},
		{name: "nil clock", new: func() *blueprint.ZoneCache[int] { return blueprint.NewZoneCacheWithClock[int](time.Hour, nil) }},
		{name: "clock.Real", new: func() *blueprint.ZoneCache[int] {
			return blueprint.NewZoneCacheWithClock[int](time.Hour, clock.Real())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.new()
			assert.True(t, c.Expired())
			c.Reset(3)
			assert.False(t, c.Expired())
			assert.Equal(t, 3, c.Get())
		})
	}
}

func TestZoneCacheClockGoesBackwards(t *testing.T) {
	clk := clocktest.New(time.Time{})
	c := blueprint.NewZoneCacheWithClock[int](time.Minute, clk)
	c.Reset(1)
	clk.Set(clk.Now().Add(-time.Hour))
	assert.False(t, c.Expired(), "a value is fresh until its expiry time is reached")
	clk.Advance(time.Hour + time.Minute)
	assert.True(t, c.Expired())
	assert.Equal(t, 1, c.Get(), "stale value until the next Reset")
}

func TestZoneCacheConcurrent(t *testing.T) {
	clk := clocktest.New(time.Unix(0, 0))
	c := blueprint.NewZoneCacheWithClock[map[string]int](time.Second, clk)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				if c.Expired() {
					c.Reset(map[string]int{"zone": i*1000 + j})
				}
				_ = c.Get()["zone"]
				clk.Advance(time.Millisecond)
			}
		})
	}
	wg.Wait()
	assert.NotNil(t, c.Get())
}
