package execute

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// errCallTimeout is the cause of a handler context the watchdog ended.
var errCallTimeout = fmt.Errorf("the call timeout passed: %w", context.DeadlineExceeded)

// watchTick bounds how late past its deadline the watchdog ends a call.
const (
	minWatchTick = 5 * time.Millisecond
	maxWatchTick = time.Second
)

// watchdog ends the handler contexts of calls past their deadline. One
// goroutine per dispatcher runs while calls are in flight and wakes every
// tick (an eighth of the shortest timeout seen, within [minWatchTick,
// maxWatchTick]), so a call ends at most one tick after its deadline.
type watchdog struct {
	mu      sync.Mutex
	calls   map[uint64]watched
	next    uint64
	tick    time.Duration
	running bool
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
	tick := min(max(time.Until(deadline)/8, minWatchTick), maxWatchTick)
	if w.tick == 0 || tick < w.tick {
		w.tick = tick
	}
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
		w.mu.Lock()
		tick := w.tick
		w.mu.Unlock()
		time.Sleep(tick)
		now := time.Now()
		w.mu.Lock()
		for id, c := range w.calls {
			if !now.Before(c.deadline) {
				c.cancel(errCallTimeout)
				delete(w.calls, id)
			}
		}
		if len(w.calls) == 0 {
			w.running, w.tick = false, 0
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}
