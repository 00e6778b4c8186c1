package crd

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/zonesync/zonesync/clock"
)

// ErrInvalidConfig is wrapped by every error [New] returns for a bad
// [Config]; the message names the field at fault.
var ErrInvalidConfig = errors.New("invalid CRD registry configuration")

// DefaultNamespace is the namespace of the DNSRecord objects when
// [Config.Namespace] is empty. It stays "default" so that a registry
// configured without a namespace keeps finding the objects it wrote; see
// [Config.Namespace] for the rights that namespace should give nobody
// else.
const DefaultNamespace = "default"

// DefaultCacheTimeout is [Config.CacheTimeout] when it is zero.
const DefaultCacheTimeout = 30 * time.Second

// Config configures a [Registry]. Only OwnerID is required.
type Config struct {
	// OwnerID is the owner of every record the registry creates: the
	// value of the OwnerLabel of its DNSRecord objects and of the owner
	// label of the record sets (required). It must be a valid Kubernetes
	// label value (at most 63 characters: letters, digits, "-", "_", ".",
	// beginning and ending with a letter or digit).
	OwnerID string

	// Namespace holds the DNSRecord objects ("" = "default"). Object names
	// do not include the owner: give each owner id its own namespace (two
	// owners in one namespace cannot both record a record set of the same
	// name and type, and the registry refuses to take over the other's
	// object).
	//
	// Rights on DNSRecords in this namespace are rights on the zone:
	// whoever may update (or patch) dnsrecords/status there owns any
	// record, whoever may update dnsrecords there owns the records the
	// namespace's DNSRecords claim, and whoever may delete them can drop
	// our ownership of our records. Create alone grants no ownership (a
	// created object has no status, and claims nothing without one; see
	// the package documentation). Choose a namespace where only the
	// registry holds those rights: "default" is the default for
	// compatibility, and in many clusters broad roles reach it.
	Namespace string

	// CacheTimeout bounds how long [Registry.Start] waits for the first
	// list of DNSRecord objects, and how long Records waits for the cache
	// to show what the last ApplyChanges wrote (after which it reads the
	// cache as it is). Zero: [DefaultCacheTimeout].
	CacheTimeout time.Duration

	// Clock gives the time of status condition transitions (nil: the real
	// clock).
	Clock clock.Clock
}

// validate checks cfg and fills in the defaults.
func (cfg Config) validate() (Config, error) {
	if cfg.OwnerID == "" {
		return cfg, fmt.Errorf("crd registry: %w: OwnerID is empty: set it to the owner id this instance writes (the same on every restart)", ErrInvalidConfig)
	}
	if errs := validation.IsValidLabelValue(cfg.OwnerID); len(errs) > 0 {
		return cfg, fmt.Errorf("crd registry: %w: OwnerID %q is not a valid Kubernetes label value (the %s label of every DNSRecord holds it): %s",
			ErrInvalidConfig, cfg.OwnerID, OwnerLabel, strings.Join(errs, "; "))
	}
	if cfg.Namespace == "" {
		cfg.Namespace = DefaultNamespace
	}
	if errs := validation.IsDNS1123Label(cfg.Namespace); len(errs) > 0 {
		return cfg, fmt.Errorf("crd registry: %w: Namespace %q is not a valid namespace name: %s",
			ErrInvalidConfig, cfg.Namespace, strings.Join(errs, "; "))
	}
	if cfg.CacheTimeout < 0 {
		return cfg, fmt.Errorf("crd registry: %w: CacheTimeout %v is negative: use 0 for the default (%v)", ErrInvalidConfig, cfg.CacheTimeout, DefaultCacheTimeout)
	}
	if cfg.CacheTimeout == 0 {
		cfg.CacheTimeout = DefaultCacheTimeout
	}
	cfg.Clock = clock.OrReal(cfg.Clock)
	return cfg, nil
}
