// Package kubetest runs a real Kubernetes API server for tests: etcd and
// kube-apiserver on loopback, started once per test binary, with an admin
// client configuration, fresh namespaces, CustomResourceDefinitions installed
// from YAML, and clients that act as other users for RBAC tests.
//
// It is what controller-runtime's envtest does, without controller-runtime:
// fakes have no real watch semantics, resource versions, CRD validation,
// status subresources, field managers or RBAC, and the sources, the Events
// observer, the DNSEndpoint status write-back, registry/crd and
// examples/operator are tested against the real thing here.
//
// # Binaries
//
// Neither has a usable Debian package: there is no kube-apiserver package,
// and Debian's etcd-server is etcd 3.4, which lacks the watch progress
// notifications that kube-apiserver's consistent reads from its watch cache
// wait for. The tools module tools/kubeapiserver (its own go.mod, so that
// k8s.io/kubernetes never enters zonesync's module graph) builds
// kube-apiserver from k8s.io/kubernetes and etcd from
// go.etcd.io/etcd/server/v3 at the version that Kubernetes release pins:
// `make kubetest-binaries`, which `make test` runs first, puts both in bin/.
// kubetest finds them there from any directory of the repository, or where
// ZONESYNC_KUBE_APISERVER and ZONESYNC_ETCD say.
//
// When a binary is missing the tests that need it are skipped, unless the
// environment variable ZONESYNC_REQUIRE_KUBE is "1" (CI sets it): then they
// fail.
//
// # Use
//
// A test package keeps one [Shared] for the binary, stops it in TestMain,
// and asks it for the running [Env] in each test:
//
//	var kube kubetest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(kube.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		env := kube.Env(t)               // starts the server on first use
//		ns := env.Namespace(t)           // a fresh namespace for this test
//		env.InstallCRDs(t, crdYAML)      // idempotent, waits until served
//		client := kubernetes.NewForConfigOrDie(env.Config())
//		...
//	}
//
// The server has no controllers (no kube-controller-manager, no scheduler,
// no kubelet): objects are stored and watched exactly as in a cluster, but
// nothing acts on them — Pods are never scheduled, Services get no
// endpoints, namespaces stay Terminating after deletion. Tests set status
// fields themselves, as they would have to with fakes.
package kubetest
