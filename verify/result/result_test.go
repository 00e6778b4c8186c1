package result_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zonesync/zonesync/verify/result"
)

func TestStatusStrings(t *testing.T) {
	// The statuses are the words of the DNSRecord controller design;
	// callers store and compare them as text.
	assert.Equal(t, "sync", string(result.Sync))
	assert.Equal(t, "notsync", string(result.NotSync))
	assert.Equal(t, "notavailable", string(result.NotAvailable))
}
