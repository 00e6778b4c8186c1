package clock_test

import (
	"fmt"
	"time"

	"github.com/zonesync/zonesync/clock"
	"github.com/zonesync/zonesync/clock/clocktest"
)

// A component takes a clock.Clock and defaults to the real one.
type poller struct{ clk clock.Clock }

func (p poller) nextPoll(every time.Duration) time.Time {
	return clock.OrReal(p.clk).Now().Add(every)
}

func ExampleOrReal() {
	fake := clocktest.New(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	fmt.Println(poller{clk: fake}.nextPoll(time.Minute).Format(time.TimeOnly))
	fmt.Println(poller{}.nextPoll(time.Minute).After(time.Now())) // nil: the real clock
	// Output:
	// 12:01:00
	// true
}
