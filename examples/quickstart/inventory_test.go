package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zonesync/zonesync/inventory"
)

// TestInventoryOverTheQuickstart runs the quickstart's Reconciler with an
// inventory as its Observer and serves it as JSON and as a page: after the
// third cycle it lists www with its new target and api, and no longer old,
// whose record the cycle deleted. The program's output is unchanged.
func TestInventoryOverTheQuickstart(t *testing.T) {
	inv, err := inventory.New(inventory.Options{Groups: inventory.GroupMapping{Default: "quickstart"}})
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, runObserved(context.Background(), &out, logr.Discard(), inv))
	assert.Equal(t, want, out.String())

	var rows []string
	for _, v := range inv.List(inventory.Filter{}).Views {
		rows = append(rows, v.Name+" "+v.RecordType+" "+strings.Join(v.Targets, ",")+" "+string(v.Outcome.State)+" "+strings.Join(v.Groups, ","))
	}
	assert.Equal(t, []string{
		"api.example.com CNAME www.example.com unchanged quickstart",
		"www.example.com A 192.0.2.20 applied quickstart",
	}, rows)
	last, ok := inv.LastCycle()
	require.True(t, ok)
	assert.Equal(t, CycleCounts{Updates: 1, Deletes: 1}, CycleCounts{last.Creates, last.Updates, last.Deletes})

	h, err := inventory.NewHandler(inv, inventory.HandlerOptions{})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/inventory", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/inventory?format=json&status=applied")
	require.NoError(t, err)
	defer resp.Body.Close()
	var page struct {
		Total int              `json:"total"`
		Names []inventory.View `json:"names"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	require.Equal(t, 1, page.Total)
	assert.Equal(t, "www.example.com", page.Names[0].Name)

	resp, err = http.Get(srv.URL + "/inventory")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
}

// CycleCounts are the change counts of a cycle.
type CycleCounts struct{ Creates, Updates, Deletes int }
