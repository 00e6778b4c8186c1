package standin

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCounter(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Add("list") })
	}
	wg.Wait()
	c.Add("create")
	assert.Equal(t, 10, c.Count("list"))
	assert.Equal(t, 0, c.Count("delete"))
	got := c.Counts()
	assert.Equal(t, map[string]int{"list": 10, "create": 1}, got)
	got["list"] = 0
	assert.Equal(t, 10, c.Count("list"), "Counts returns a copy")
	c.Reset()
	assert.Empty(t, c.Counts())
}

func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusCreated, map[string]int{"a": 1})
	assert.Equal(t, http.StatusCreated, rec.Code)
	assert.Equal(t, "application/json; charset=utf-8", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"a":1}`, rec.Body.String())

	rec = httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, func() {})
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
}
