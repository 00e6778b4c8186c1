package webhook

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestServerOptions(t *testing.T) {
	metrics := http.NotFoundHandler()
	tests := []struct {
		name string
		opts []ServerOptions
		want serverSettings
	}{
		{"none: the defaults", nil, serverSettings{maxBody: DefaultMaxRequestBytes, maxConcurrent: DefaultMaxConcurrentRequests}},
		{"zero value: the defaults", []ServerOptions{{}}, serverSettings{maxBody: DefaultMaxRequestBytes, maxConcurrent: DefaultMaxConcurrentRequests}},
		{"set", []ServerOptions{{MaxRequestBytes: 10, MaxConcurrentRequests: 2, MetricsHandler: metrics}},
			serverSettings{maxBody: 10, maxConcurrent: 2, metrics: metrics}},
		{"negative: no cap", []ServerOptions{{MaxRequestBytes: -1, MaxConcurrentRequests: -1}}, serverSettings{}},
		{"later non-zero fields override", []ServerOptions{
			{MaxRequestBytes: 10, MaxConcurrentRequests: 2, MetricsHandler: metrics},
			{MaxConcurrentRequests: 3},
			{},
		}, serverSettings{maxBody: 10, maxConcurrent: 3, metrics: metrics}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeServerOptions(tt.opts).settings()
			assert.Equal(t, tt.want.maxBody, got.maxBody)
			assert.Equal(t, tt.want.maxConcurrent, got.maxConcurrent)
			assert.Equal(t, tt.want.metrics != nil, got.metrics != nil)
		})
	}
}

func TestClientOptions(t *testing.T) {
	client := &http.Client{}
	defaults := clientSettings{timeout: DefaultTimeout, maxResponse: DefaultMaxResponseBytes,
		attempts: DefaultNegotiateAttempts, backoff: 500 * time.Millisecond, maxBackoff: 5 * time.Second, randomFactor: 0.5}
	tests := []struct {
		name       string
		opts       []ClientOptions
		want       clientSettings
		wantClient *http.Client
	}{
		{"none: the defaults", nil, defaults, nil},
		{"zero value: the defaults", []ClientOptions{{}}, defaults, nil},
		{"set", []ClientOptions{{HTTPClient: client, Timeout: time.Second, MaxResponseBytes: 10,
			NegotiateAttempts: 2, NegotiateBackoff: time.Millisecond, NegotiateMaxBackoff: time.Minute}},
			clientSettings{timeout: time.Second, maxResponse: 10, attempts: 2, backoff: time.Millisecond,
				maxBackoff: time.Minute, randomFactor: 0.5}, client},
		{"negative: no limit, one attempt", []ClientOptions{{Timeout: -1, MaxResponseBytes: -1, NegotiateAttempts: -1}},
			clientSettings{attempts: 1, backoff: 500 * time.Millisecond, maxBackoff: 5 * time.Second, randomFactor: 0.5}, nil},
		{"later non-zero fields override", []ClientOptions{
			{HTTPClient: client, Timeout: time.Second, MaxResponseBytes: 10},
			{Timeout: 2 * time.Second},
			{},
		}, clientSettings{timeout: 2 * time.Second, maxResponse: 10, attempts: DefaultNegotiateAttempts,
			backoff: 500 * time.Millisecond, maxBackoff: 5 * time.Second, randomFactor: 0.5}, client},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeClientOptions(tt.opts).settings()
			if tt.wantClient != nil {
				assert.Same(t, tt.wantClient, got.client)
			} else {
				// A client of its own, which does not follow redirects.
				if assert.NotNil(t, got.client) {
					assert.NotNil(t, got.client.CheckRedirect)
				}
			}
			got.client = nil
			assert.Equal(t, tt.want, got)
		})
	}
}
