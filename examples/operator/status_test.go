package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider/inmemory"
	"github.com/zonesync/zonesync/registry/txt"
)

// dnsStatus reads what the controller wrote into a Service.
func dnsStatus(t *testing.T, cl *fake.Clientset, name string) (*metav1.Condition, []recordEntry) {
	t.Helper()
	svc, err := cl.CoreV1().Services("default").Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var entries []recordEntry
	if v, ok := svc.Annotations[recordsAnnotation]; ok {
		require.NoError(t, json.Unmarshal([]byte(v), &entries))
	}
	return meta.FindStatusCondition(svc.Status.Conditions, conditionDNSReady), entries
}

func TestDNSControllerWritesServiceStatus(t *testing.T) {
	ctx := context.Background()
	p := inmemory.New(inmemory.Options{Zones: []string{"example.com"}})
	// Another owner holds taken.example.com.
	other, err := txt.New(p, txt.Config{OwnerID: "someone-else"})
	require.NoError(t, err)
	require.NoError(t, other.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("taken.example.com", endpoint.RecordTypeA, "192.0.2.99"),
	}}))

	c, cl, src := testController(t, p, defaultConfig(),
		service("default", "web", map[string]string{alpha + hostnameAnnotation: "web.example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.10"}),
		service("default", "shop", map[string]string{alpha + hostnameAnnotation: "taken.example.com"},
			corev1.LoadBalancerIngress{IP: "192.0.2.11"}),
	)
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)

	cond, entries := dnsStatus(t, cl, "web")
	require.NotNil(t, cond)
	assert.Equal(t, metav1.ConditionTrue, cond.Status)
	assert.Equal(t, []recordEntry{{Hostname: "web.example.com", Type: "A", State: "ready"}}, entries)

	cond, entries = dnsStatus(t, cl, "shop")
	require.NotNil(t, cond)
	assert.Equal(t, metav1.ConditionFalse, cond.Status)
	assert.Equal(t, "RecordSkipped", cond.Reason)
	assert.Contains(t, cond.Message, "taken.example.com/A: skipped (foreign-owner)")
	require.Len(t, entries, 1)
	assert.Equal(t, "skipped", entries[0].State)
	assert.Equal(t, "foreign-owner", entries[0].Reason)

	// The next cycle finds web's record in DNS: still ready, nothing
	// rewritten.
	writes := func() int {
		n := 0
		for _, a := range cl.Actions() {
			if a.GetVerb() == "update" {
				n++
			}
		}
		return n
	}
	before := writes()
	require.Positive(t, before, "the first cycle wrote the statuses")
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	assert.Equal(t, before, writes(), "a steady state writes nothing")
	_, entries = dnsStatus(t, cl, "web")
	assert.Equal(t, "ready", entries[0].State)

	// web stops asking for DNS: its status goes away.
	web, err := cl.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	web.Annotations = map[string]string{recordsAnnotation: web.Annotations[recordsAnnotation]}
	_, err = cl.CoreV1().Services("default").Update(ctx, web, metav1.UpdateOptions{})
	require.NoError(t, err)
	waitFor(t, src, 1)
	_, err = c.Reconcile(ctx, dnsRequest)
	require.NoError(t, err)
	cond, entries = dnsStatus(t, cl, "web")
	assert.Nil(t, cond)
	assert.Nil(t, entries)
}
