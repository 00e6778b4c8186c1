package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunSmallWorkload(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out, []string{"-n", "100"}))
	assert.Contains(t, out.String(), "W(100) steady-state cycle: ")
	assert.Contains(t, out.String(), "changes: 0 creates, 0 updates, 0 deletes")
}

func TestRunWritesHeapProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.out")
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out, []string{"-n", "100", "-memprofile", path}))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Positive(t, fi.Size())
}

func TestRunRejectsBadN(t *testing.T) {
	var out strings.Builder
	require.ErrorContains(t, run(context.Background(), &out, []string{"-n", "0"}), "-n must be positive")
}
