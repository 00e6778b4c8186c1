package webhook

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync"
)

// Sizes of the pieces a request body is read into: the first is small, so
// that a client sending its body slowly holds little memory, and each
// further one doubles, up to the last size.
const (
	firstBodyChunk = 4 << 10
	maxBodyChunk   = 1 << 20
)

// errBodyBudget is the error of [handler.readBody] when the bodies being
// held already use the handler's whole byte budget.
var errBodyBudget = errors.New("too many request bytes held at once")

// byteBudget bounds the bytes of request bodies the handler holds at once,
// across all requests. A nil *byteBudget grants everything.
type byteBudget struct {
	mu   sync.Mutex
	left int64
}

// newByteBudget returns a budget of n bytes, or nil (no bound) when n is
// not positive.
func newByteBudget(n int64) *byteBudget {
	if n <= 0 {
		return nil
	}
	return &byteBudget{left: n}
}

// take reserves n bytes and reports whether they were left.
func (b *byteBudget) take(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// give returns n bytes taken before.
func (b *byteBudget) give(n int64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

// readBody reads r's whole body into memory before the request takes a
// concurrency slot, so that a client sending its body slowly holds no slot
// while it does. The body is capped at the handler's MaxRequestBytes: a
// Content-Length over the cap is refused before anything is read, and
// reading past the cap fails with *http.MaxBytesError (the caller has
// wrapped r.Body with [handler.body]). Every piece of memory the body is
// read into is first taken from the handler's byte budget; when the budget
// is spent, readBody fails with errBodyBudget. On success it returns a
// reader over the body and a function that gives the body's bytes back to
// the budget, which the caller calls once it no longer reads the body. On
// failure nothing stays taken.
func (h *handler) readBody(r *http.Request) (io.Reader, func(), error) {
	maxBody := h.opts.maxBody
	if maxBody > 0 && r.ContentLength > maxBody {
		return nil, nil, &http.MaxBytesError{Limit: maxBody}
	}
	var (
		held   int64
		total  int64
		pieces []io.Reader
		cur    []byte
	)
	release := func() { h.budget.give(held) }
	size := int64(firstBodyChunk)
	if n := r.ContentLength; n >= 0 && n < size {
		// Room for the declared body and for seeing its end.
		size = n + 1
	}
	for {
		if len(cur) == cap(cur) {
			if len(cur) > 0 {
				pieces = append(pieces, bytes.NewReader(cur))
			}
			n := size
			if maxBody > 0 {
				// Never more than the cap allows, plus the one byte that
				// tells the end of a body of exactly the cap from more.
				n = min(n, maxBody+1-total)
			}
			if !h.budget.take(n) {
				release()
				return nil, nil, errBodyBudget
			}
			held += n
			cur = make([]byte, 0, n)
			size = min(max(2*size, firstBodyChunk), maxBodyChunk)
		}
		n, err := r.Body.Read(cur[len(cur):cap(cur)])
		cur = cur[:len(cur)+n]
		total += int64(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			release()
			return nil, nil, err
		}
	}
	if len(cur) > 0 {
		pieces = append(pieces, bytes.NewReader(cur))
	}
	return io.MultiReader(pieces...), release, nil
}
