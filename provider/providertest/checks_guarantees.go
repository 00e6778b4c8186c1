package providertest

import (
	"fmt"
	"strings"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/plan"
	"github.com/zonesync/zonesync/provider"
)

// checkGuarantees checks what the provider declares it guarantees
// ([provider.GuaranteesOf]) against the options and against what it does:
// the core trusts a declaration (it sends set identifiers only to providers
// that keep them, and re-reads before creating only on providers whose
// creates may overwrite), so a false one would let a record be taken over.
func checkGuarantees(s *session) {
	g := provider.GuaranteesOf(s.p)
	if g.CreateFailsIfExists && s.cfg.upsert {
		s.fail("Guarantees", "", "the provider declares CreateFailsIfExists while Options.Upsert says its creates replace existing records", nil)
	}
	if g.KeepsSetIdentifiers && !s.cfg.setIdentifier {
		s.fail("Guarantees", "", "the provider declares KeepsSetIdentifiers while Options.NoSetIdentifier says it has none", nil)
	}
	for _, t := range g.RecordTypes {
		if t == "" || t != strings.ToUpper(t) {
			s.fail("Guarantees", "", fmt.Sprintf("declared record type %q is not an upper-case type name", t), nil)
		}
	}
	for _, p := range g.ProviderSpecific {
		if p == "" {
			s.fail("Guarantees", "", "declares an empty provider-specific property name", nil)
		}
	}
	if g.CreateFailsIfExists {
		first := ep(s.name("guaranteed-create"), typeA, 300, "192.0.2.90")
		if s.create(first) {
			second := ep(first.DNSName, typeA, 600, "192.0.2.91")
			if err := s.p.ApplyChanges(s.ctx, &plan.Changes{Create: []*endpoint.Endpoint{second}}); err == nil {
				s.fail("ApplyChanges(create)", keyOf(second), "the provider declares CreateFailsIfExists, but creating an existing record succeeded", nil)
			}
			if recs, ok := s.records("create of an existing record on a provider that declares CreateFailsIfExists"); ok {
				s.expect(recs, first, "a create of an existing record on a provider that declares CreateFailsIfExists")
			}
		}
	}
	if g.KeepsSetIdentifiers {
		name := s.name("guaranteed-set")
		eu := ep(name, typeA, 300, "192.0.2.92").WithSetIdentifier("zs-eu")
		us := ep(name, typeA, 300, "192.0.2.93").WithSetIdentifier("zs-us")
		if s.create(eu, us) {
			if recs, ok := s.records("create of two set identifiers on a provider that declares KeepsSetIdentifiers"); ok {
				s.expect(recs, eu, "a create on a provider that declares KeepsSetIdentifiers")
				s.expect(recs, us, "a create on a provider that declares KeepsSetIdentifiers")
				s.expectAbsent(recs, ep(name, typeA, 0), "creates with set identifiers on a provider that declares KeepsSetIdentifiers")
			}
		}
	}
}
