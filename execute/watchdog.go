package execute

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ErrCallTimeout is the cause (context.Cause) of a handler's context when
// [Options.CallTimeout] passed, as against the caller's own deadline or
// cancellation. It wraps context.DeadlineExceeded, so a handler that only
// checks for a deadline still sees one.
var ErrCallTimeout = fmt.Errorf("the call timeout passed: %w", context.DeadlineExceeded)

// minWatchTick and maxWatchTick bound the watchdog's tick, and so how late
// past its deadline it ends a call.
const (
	minWatchTick = 5 * time.Millisecond
	maxWatchTick = time.Second
)

// watchdog ends the handler contexts of calls past their deadline. One
// goroutine per dispatcher runs while calls are in flight and wakes every
// tick, so a call ends at most one tick after its deadline.
type watchdog struct {
	tick time.Duration // fixed at creation; read without mu

	mu      sync.Mutex
	calls   map[uint64]watched
	next    uint64
	running bool
}

// newWatchdog returns a watchdog for calls of the given timeout: its tick
// is an eighth of it, within [minWatchTick, maxWatchTick].
func newWatchdog(timeout time.Duration) watchdog {
	return watchdog{
		tick:  min(max(timeout/8, minWatchTick), maxWatchTick),
		calls: map[uint64]watched{},
	}
}

type watched struct {
	deadline time.Time
	cancel   context.CancelCauseFunc
}

// add watches one call until remove.
func (w *watchdog) add(deadline time.Time, cancel context.CancelCauseFunc) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next++
	w.calls[w.next] = watched{deadline, cancel}
	if !w.running {
		w.running = true
		go w.run()
	}
	return w.next
}

func (w *watchdog) remove(id uint64) {
	w.mu.Lock()
	delete(w.calls, id)
	w.mu.Unlock()
}

// run ends expired calls each tick and stops when none is in flight.
func (w *watchdog) run() {
	for {
		time.Sleep(w.tick)
		now := time.Now()
		w.mu.Lock()
		for id, c := range w.calls {
			if !now.Before(c.deadline) {
				c.cancel(ErrCallTimeout)
				delete(w.calls, id)
			}
		}
		if len(w.calls) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}
