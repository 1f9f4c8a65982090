package emulator

import (
	"bytes"
	"slices"
	"sync"
)

// capture keeps the tail of what a process writes (both its streams) and
// notes which needles (sentinels, secrets) ever passed through it, across
// write boundaries. It is safe for concurrent writes and its Close does
// nothing, so one capture can serve as standard output and error.
type capture struct {
	needles map[string]string // value → what it is

	mu    sync.Mutex
	buf   []byte
	seen  map[string]bool
	total int64
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	longest := 0
	for n := range c.needles {
		longest = max(longest, len(n))
	}
	if longest > 0 {
		keep := min(len(c.buf), longest-1)
		window := append(slices.Clone(c.buf[len(c.buf)-keep:]), p...)
		for n, what := range c.needles {
			if bytes.Contains(window, []byte(n)) {
				if c.seen == nil {
					c.seen = map[string]bool{}
				}
				c.seen[what] = true
			}
		}
	}
	c.buf = append(c.buf, p...)
	if len(c.buf) > 2*maxOutput {
		c.buf = slices.Clone(c.buf[len(c.buf)-maxOutput:])
	}
	c.total += int64(len(p))
	return len(p), nil
}

func (c *capture) Close() error { return nil }

func (c *capture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.buf)
}

func (c *capture) String() string { return string(c.bytes()) }

// found lists what the needles seen are, sorted.
func (c *capture) found() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for what := range c.seen {
		out = append(out, what)
	}
	slices.Sort(out)
	return out
}

// signalWriter closes ready the first time want has been written.
type signalWriter struct {
	want  []byte
	ready chan struct{}

	mu   sync.Mutex
	buf  []byte
	done bool
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.buf = append(w.buf, p...)
		if bytes.Contains(w.buf, w.want) {
			w.done = true
			close(w.ready)
			w.buf = nil
		}
	}
	return len(p), nil
}

func (w *signalWriter) Close() error { return nil }
