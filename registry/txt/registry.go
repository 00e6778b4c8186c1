package txt

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/provider"
	"github.com/zonesync/zonesync/registry"
)

// Registry is the TXT ownership registry: a [registry.Registry] that keeps
// the owner of every record in a TXT record next to it, in the format of
// the external-dns TXT registry. Create one with [New]; the zero value is
// not usable. A Registry is safe for concurrent use.
type Registry struct {
	provider   provider.Provider
	ownerID    string
	oldOwnerID string
	namer      txtNamer
	key        []byte   // decrypts values read; nil: plain only
	encrypt    bool     // write values encrypted with key
	managed    []string // upper case
	aliasCNAME bool
	shared     *sharedMode // nil: shared mode off

	applyMu sync.Mutex // serialises ApplyChanges

	mu    sync.Mutex
	gen   uint64     // incremented by every ApplyChanges
	state *zoneState // ownership TXT records of the last read; nil: unknown
	// sharedSt is what the last read saw of the shared record sets (shared
	// mode only); nil: unknown. Every ApplyChanges call clears it.
	sharedSt *sharedState
	// sharedSuspects are the shared record sets the last read found
	// without their record, with the targets their contributions asked
	// for (see Registry.shareView). Like suspects, it lives as long as the
	// Registry.
	sharedSuspects map[endpoint.Key]map[string]bool
	warned         map[string]bool // obsolete alias TXT names already reported

	// suspects holds, by txtKey, the ownership TXT records of ours whose
	// record this registry cannot vouch for (see suspect). The map is
	// replaced, never modified, once published. It lives as long as the
	// Registry: after a restart a TXT of ours next to a record is trusted.
	suspects map[string]*suspect
	// warnings of the last read (see SettingsWarnings).
	warnings []string
	// lastRead is the size of the last read, to size the next one.
	lastRead readSizes
	// filter is the provider's domain filter as the last read took it, for
	// CheckOwnable, which runs once per record to create: some providers
	// answer GetDomainFilter with API calls (external-dns's pdns provider
	// lists its zones). Nil until needed; every read replaces it.
	filter endpoint.DomainFilterInterface
}

// domainFilter returns the provider's domain filter, taken at most once
// between two reads.
func (r *Registry) domainFilter() endpoint.DomainFilterInterface {
	r.mu.Lock()
	f := r.filter
	r.mu.Unlock()
	if f != nil {
		return f
	}
	f = r.provider.GetDomainFilter()
	r.mu.Lock()
	r.filter = f
	r.mu.Unlock()
	return f
}

var _ registry.Registry = (*Registry)(nil)

// New returns a TXT registry over p. The configuration is checked (see
// [Config]); errors wrap [ErrInvalidConfig] and name the field at fault.
func New(p provider.Provider, cfg Config) (*Registry, error) {
	if p == nil {
		return nil, fmt.Errorf("txt: %w: provider is nil", ErrInvalidConfig)
	}
	namer, key, managed, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	var shared *sharedMode
	if cfg.Shared != nil {
		if shared, err = cfg.Shared.validate(); err != nil {
			return nil, fmt.Errorf("txt: %w: %w", ErrInvalidConfig, err)
		}
	}
	return &Registry{
		shared:     shared,
		provider:   p,
		ownerID:    cfg.OwnerID,
		oldOwnerID: cfg.OldOwnerID,
		namer:      namer,
		key:        key,
		encrypt:    len(key) > 0 && cfg.EncryptionMode == EncryptionReadWrite,
		managed:    managed,
		aliasCNAME: cfg.AliasTXTType == AliasTXTTypeCNAME,
		warned:     map[string]bool{},
	}, nil
}

var _ registry.OwnershipReporter = (*Registry)(nil)

// OwnerID returns the configured owner id.
func (r *Registry) OwnerID() string { return r.ownerID }

// Ownership returns the ownership settings of the registry, the ones a
// Reconciler must plan with: [Config.OwnerID], [Config.OldOwnerID] and the
// managed record types — [Config.ManagedRecordTypes] (or the default A,
// AAAA, CNAME) in upper case, without [Config.ExcludeRecordTypes], never
// empty. The slice is new on every call.
func (r *Registry) Ownership() registry.Ownership {
	return registry.Ownership{
		OwnerID:            r.ownerID,
		OldOwnerID:         r.oldOwnerID,
		ManagedRecordTypes: slices.Clone(r.managed),
	}
}

// manages reports whether records of recordType are managed; the type is
// compared case-insensitively.
func (r *Registry) manages(recordType string) bool {
	for _, t := range r.managed {
		if t == recordType || strings.EqualFold(t, recordType) {
			return true
		}
	}
	return false
}

// AdjustEndpoints passes eps to the provider's AdjustEndpoints.
func (r *Registry) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return r.provider.AdjustEndpoints(ctx, eps)
}

// GetDomainFilter returns the provider's domain filter: the one the last
// Records call took, when it took one, so that a cycle asks the provider
// (for Route 53, an API call) no more often than external-dns does.
func (r *Registry) GetDomainFilter() endpoint.DomainFilterInterface {
	return r.domainFilter()
}
