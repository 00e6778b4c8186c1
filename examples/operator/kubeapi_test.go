package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sclient "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/zonesync/zonesync"
	"github.com/zonesync/zonesync/internal/kubetest"
	"github.com/zonesync/zonesync/internal/kubetest/kubedrive"
	"github.com/zonesync/zonesync/inventory"
	"github.com/zonesync/zonesync/provider/inmemory"
)

// TestManagerAgainstAPIServer runs the example's managers against a real
// kube-apiserver (package kubetest).
var kube kubetest.Shared

func TestMain(m *testing.M) { os.Exit(kube.Main(m)) }

// leaseGets counts the requests of a client for the leader election
// Lease: one per attempt to acquire or renew it.
type leaseGets struct {
	next http.RoundTripper
	n    *atomic.Int32
}

func (c leaseGets) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/leases/"+managerOptions(defaultConfig()).LeaderElectionID) {
		c.n.Add(1)
	}
	return c.next.RoundTrip(req)
}

// startManager starts the example's manager over restCfg, with its own
// zone, until the test ends. Replicas of an operator run in processes of
// their own; here they share one, so controller-runtime must be told that
// the second controller of the same name is no mistake.
func startManager(t *testing.T, restCfg *rest.Config, cfg config) (manager.Manager, *inmemory.Provider) {
	t.Helper()
	logger, _ := kubedrive.Logger(t)
	zone := inmemory.New(inmemory.Options{Zones: []string{cfg.zone}})
	ctx, cancel := context.WithCancel(context.Background())
	opts := managerOptions(cfg)
	skip := true
	opts.Controller.SkipNameValidation = &skip
	mgr, err := setup(ctx, restCfg, opts, cfg, zone, logger)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return mgr, zone
}

// TestManagerAgainstAPIServer: the manager acquires its leader election
// Lease, its controller publishes a Service's record into the zone and
// writes the outcome into the Service (annotation and status condition,
// through the status subresource); a second manager of the same
// operator does not become leader while the first holds the Lease, and
// writes no DNS.
func TestManagerAgainstAPIServer(t *testing.T) {
	o := kubedrive.New(t, &kube)
	client, err := k8sclient.NewForConfig(o.Env.Config())
	require.NoError(t, err)
	cfg := defaultConfig()
	cfg.namespace = o.Namespace // of the Lease
	leaseID := managerOptions(cfg).LeaderElectionID

	// The first replica serves its metrics and the inventory on a port of
	// its own; the second serves none (one process, one port each).
	cfg.metricsAddr = freeAddr(t)
	first, zone := startManager(t, o.Env.Config(), cfg)
	select {
	case <-first.Elected():
	case <-time.After(kubedrive.Timeout):
		t.Fatal("the first manager was not elected")
	}
	lease, err := client.CoordinationV1().Leases(o.Namespace).Get(o.Ctx, leaseID, metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, lease.Spec.HolderIdentity)
	holder := *lease.Spec.HolderIdentity
	assert.NotEmpty(t, holder)

	o.Create(kubedrive.Services, `
metadata: {name: web, labels: {team: storefront}, annotations: {external-dns.alpha.kubernetes.io/hostname: web.example.com}}
spec: {type: LoadBalancer, allocateLoadBalancerNodePorts: false, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: 192.0.2.10}]}}
`)
	kubedrive.Eventually(t, "zone", []string{"web.example.com A 192.0.2.10"}, func() []string { return kubedrive.Records(t, zone) })
	kubedrive.Eventually(t, "the Service's DNS status", []string{
		`annotation [{"hostname":"web.example.com","type":"A","state":"ready"}]`,
		"condition DNSReady True RecordsApplied: 1 record(s) in DNS",
	}, func() []string {
		svc, err := client.CoreV1().Services(o.Namespace).Get(o.Ctx, "web", metav1.GetOptions{})
		require.NoError(t, err)
		out := []string{"annotation " + svc.Annotations[recordsAnnotation]}
		for _, c := range svc.Status.Conditions {
			out = append(out, "condition "+c.Type+" "+string(c.Status)+" "+c.Reason+": "+c.Message)
		}
		return out
	})

	// The leader's metrics port serves the inventory: the record, its
	// Service, its group (the Service's team label) and its outcome
	// (applied, or unchanged after a later cycle).
	kubedrive.Eventually(t, "the inventory on the metrics port", []string{
		"web.example.com A 192.0.2.10 service/" + o.Namespace + "/web storefront in DNS",
	}, func() []string { return inventoryRows(t, "http://"+cfg.metricsAddr+inventoryPath+"?format=json") })

	// A second replica tries the Lease (twice, so once more after
	// seeing it held) and stays a follower.
	cfg.metricsAddr = "0"
	var gets atomic.Int32
	restCfg := o.Env.Config()
	restCfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return leaseGets{rt, &gets} })
	second, secondZone := startManager(t, restCfg, cfg)
	kubedrive.Eventually(t, "the second manager's attempts", []string{"at least 2"}, func() []string {
		if gets.Load() >= 2 {
			return []string{"at least 2"}
		}
		return nil
	})
	select {
	case <-second.Elected():
		t.Fatal("the second manager became leader while the first holds the Lease")
	default:
	}
	lease, err = client.CoordinationV1().Leases(o.Namespace).Get(o.Ctx, leaseID, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, holder, *lease.Spec.HolderIdentity)
	assert.Empty(t, kubedrive.Records(t, secondZone), "a follower writes no DNS")
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// inventoryRows reads the inventory's JSON at url: "name type targets
// resource groups state" per record ("in DNS" for applied or unchanged),
// nil while it cannot be read.
func inventoryRows(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var page struct {
		Names []inventory.View `json:"names"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&page) != nil {
		return nil
	}
	var rows []string
	for _, v := range page.Names {
		state := string(v.Outcome.State)
		if v.Outcome.State == zonesync.RecordApplied || v.Outcome.State == zonesync.RecordUnchanged {
			state = "in DNS"
		}
		rows = append(rows, strings.Join([]string{v.Name, v.RecordType, strings.Join(v.Targets, ","), v.Resource, strings.Join(v.Groups, ","), state}, " "))
	}
	return rows
}
