package runner

import (
	"fmt"
	"sync"
)

// capture keeps the first and last limit/2 bytes written to it, so a tool
// printing gigabytes costs bounded memory while both the first errors and
// the final summary survive.
type capture struct {
	mu      sync.Mutex
	limit   int
	head    []byte
	tail    []byte // ring buffer once full
	tailPos int
	total   int64
}

func newCapture(limit int) *capture {
	return &capture{limit: limit}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	headCap := c.limit - c.limit/2
	if room := headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	tailCap := c.limit / 2
	if tailCap == 0 || len(p) == 0 {
		return n, nil
	}
	if len(p) >= tailCap {
		c.tail = append(c.tail[:0], p[len(p)-tailCap:]...)
		c.tailPos = 0
		return n, nil
	}
	if len(c.tail) < tailCap {
		room := tailCap - len(c.tail)
		k := min(room, len(p))
		c.tail = append(c.tail, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 { // ring is full: overwrite the oldest bytes
		k := copy(c.tail[c.tailPos:], p)
		p = p[k:]
		c.tailPos = (c.tailPos + k) % tailCap
	}
	return n, nil
}

// String returns the kept output, with a marker where bytes were dropped.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := int64(len(c.head) + len(c.tail))
	if c.total == kept {
		return string(c.head) + string(c.tail[c.tailPos:]) + string(c.tail[:c.tailPos])
	}
	return fmt.Sprintf("%s\n... [%d bytes omitted] ...\n%s%s", c.head, c.total-kept, c.tail[c.tailPos:], c.tail[:c.tailPos])
}

// Truncated reports whether bytes were dropped.
func (c *capture) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > int64(len(c.head)+len(c.tail))
}

// Total is the number of bytes written.
func (c *capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
