package externaldns

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	xendpoint "sigs.k8s.io/external-dns/endpoint"
	xconfig "sigs.k8s.io/external-dns/pkg/apis/externaldns"
	xprovider "sigs.k8s.io/external-dns/provider"

	"github.com/zonesync/zonesync/provider"
)

var _ provider.ZoneLister = (*Provider)(nil)

// ListZones implements [provider.ZoneLister], so that the Reconciler's
// safety threshold applies to each zone on its own and the TXT registry
// applies one zone per call. The zones come from, in this order:
//
//   - [Options.Zones], when given;
//   - the configuration [New] was given, for external-dns's rfc2136
//     provider: its --rfc2136-zone values (the root zone when there are
//     none), the zones it transfers and updates;
//   - the wrapped provider, for the external-dns v0.23.0 providers that
//     can tell: inmemory (its Zones() map[string]string, whose values are
//     zone names; any provider with that method is asked the same way),
//     aws (Zones, the hosted zones its filters select), aws-sd
//     (ListNamespaces, the Cloud Map namespaces its records are named
//     under), google (Zones, the managed zones' DNS names), cloudflare,
//     dnsimple, linode and scaleway (Zones), and pdns (the domain filter
//     its GetDomainFilter builds from the zones PowerDNS lists;
//     external-dns's pdns provider has no context there, so that call
//     cannot be cancelled).
//
// Apart from the Zones() method, those providers are recognised by their
// Go type (the package that defines it), whatever name they are wrapped
// under, and their methods are called through reflection, so that this
// package does not link their SDKs. For any other provider (azure,
// azure-private-dns, coredns, godaddy, ns1, oci, ovh, pihole,
// alibabacloud, webhook, or one wrapped in something else) ListZones
// returns an error matching [provider.ErrZonesUnsupported], and
// [provider.ZonesOf] reports that the provider does not list zones.
//
// The call is serialised and protected like the others: it waits for the
// provider's previous call no longer than ctx allows, and a panic comes
// back as a [*PanicError].
func (p *Provider) ListZones(ctx context.Context) ([]string, error) {
	if p.zones.list == nil {
		return nil, fmt.Errorf("external-dns %s provider: ListZones: %w: %s", p.name, provider.ErrZonesUnsupported, p.zones.why)
	}
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, p.fail(ctx, "ListZones", start, err)
	}
	zones, err := do(ctx, p, "ListZones", func() ([]string, error) { return p.zones.list(ctx) })
	if err != nil {
		return nil, p.fail(ctx, "ListZones", start, err)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("external-dns provider listed zones",
		"provider", p.name, "zones", len(zones), "from", p.zones.how, "duration", time.Since(start))
	return zones, nil
}

// zoneListing is how the adapter lists the zones of a wrapped provider:
// list, described by how, or, when list is nil, why it cannot.
type zoneListing struct {
	list func(ctx context.Context) ([]string, error)
	how  string
	why  string
}

// externalDNSProviders is the import path under which external-dns keeps
// its provider packages.
const externalDNSProviders = "sigs.k8s.io/external-dns/provider/"

// zoneListingFor returns how the zones of next are listed: from zones when
// it is not nil ([Options.Zones]), else from cfg for the providers whose
// zones are configuration (cfg may be nil), else from next itself.
func zoneListingFor(next xprovider.Provider, zones []string, cfg *xconfig.Config) zoneListing {
	if zones != nil {
		return fixedZones(zones, "Options.Zones")
	}
	pkg := packageOf(next)
	if cfg != nil && pkg == externalDNSProviders+"rfc2136" {
		if len(cfg.RFC2136Zone) == 0 {
			// The provider works on the root zone when none is given.
			return fixedZones([]string{"."}, "the root zone (no --rfc2136-zone)")
		}
		return fixedZones(cfg.RFC2136Zone, "--rfc2136-zone")
	}
	if z, ok := next.(interface{ Zones() map[string]string }); ok {
		return zoneListing{how: "Zones()", list: func(context.Context) ([]string, error) {
			var names []string
			for _, name := range z.Zones() {
				names = append(names, name)
			}
			return sortedZones(names), nil
		}}
	}
	if pkg == externalDNSProviders+"pdns" {
		return zoneListing{how: "GetDomainFilter()", list: func(context.Context) ([]string, error) {
			return zonesOfDomainFilter(next.GetDomainFilter())
		}}
	}
	if m, ok := zoneMethods()[pkg]; ok {
		return m.listing(next)
	}
	if pkg == "" {
		return zoneListing{why: fmt.Sprintf("the wrapped provider (%T) cannot list its zones; set Options.Zones", next)}
	}
	return zoneListing{why: fmt.Sprintf("the wrapped provider (%T, package %s) cannot list its zones; set Options.Zones", next, pkg)}
}

// fixedZones lists zones, a copy taken now, described by how.
func fixedZones(zones []string, how string) zoneListing {
	zones = sortedZones(slices.Clone(zones))
	return zoneListing{how: how, list: func(context.Context) ([]string, error) { return slices.Clone(zones), nil }}
}

// sortedZones sorts names and drops duplicates, in place.
func sortedZones(names []string) []string {
	slices.Sort(names)
	return slices.Compact(names)
}

// packageOf returns the import path of the package that defines the type
// of v (through pointers), or "" for an unnamed type.
func packageOf(v any) string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	return t.PkgPath()
}

// zonesOfDomainFilter returns the zones named by a domain filter that a
// provider built from its zones, as external-dns's pdns provider does: one
// entry per zone and one with a leading dot for the names below it. An
// empty filter is an error: that provider returns one when listing failed
// (it logs why) as well as when there is no zone to list.
func zonesOfDomainFilter(f xendpoint.DomainFilterInterface) ([]string, error) {
	df, ok := f.(*xendpoint.DomainFilter)
	if !ok || df == nil {
		return nil, fmt.Errorf("the domain filter is a %T, not one built from the zones", f)
	}
	var zones []string
	for _, name := range df.Filters {
		if name != "" && !strings.HasPrefix(name, ".") {
			zones = append(zones, name)
		}
	}
	if len(zones) == 0 {
		return nil, provider.NewSoftError(errors.New("the domain filter names no zone: the server holds none, or listing them failed (see external-dns's log)"))
	}
	return sortedZones(zones), nil
}

// zoneMethod is an exported method of an external-dns provider that lists
// its zones, func(context.Context) (T, error) where T is a map or slice of
// zone structs (or pointers to them), and the fields of such a struct that
// give the zone's DNS name (string or *string), combined by name (nil: the
// first field's value).
type zoneMethod struct {
	method string
	fields []string
	name   func(values []string) string
}

// zoneMethods returns the zone-listing method of each external-dns
// v0.23.0 provider package that has one, by import path.
func zoneMethods() map[string]zoneMethod {
	return map[string]zoneMethod{
		// map[hosted zone id]*route53types.HostedZone; Name is the zone's
		// DNS name.
		externalDNSProviders + "aws": {method: "Zones", fields: []string{"Name"}},
		// []*sdtypes.NamespaceSummary: a record is named
		// <service>.<namespace name>.
		externalDNSProviders + "awssd": {method: "ListNamespaces", fields: []string{"Name"}},
		// map[managed zone name]*dns.ManagedZone; DnsName is the DNS name.
		externalDNSProviders + "google": {method: "Zones", fields: []string{"DnsName"}},
		// []zones.Zone.
		externalDNSProviders + "cloudflare": {method: "Zones", fields: []string{"Name"}},
		// map[zone id]dnsimple.Zone.
		externalDNSProviders + "dnsimple": {method: "Zones", fields: []string{"Name"}},
		// []linodego.Domain.
		externalDNSProviders + "linode": {method: "Zones", fields: []string{"Domain"}},
		// []*domain.DNSZone: the zone is <subdomain>.<domain>, or the
		// domain when there is no subdomain.
		externalDNSProviders + "scaleway": {method: "Zones", fields: []string{"Subdomain", "Domain"}, name: func(v []string) string {
			if v[0] == "" {
				return v[1]
			}
			return v[0] + "." + v[1]
		}},
	}
}

// listing checks that next has the method in the expected shape and
// returns the listing that calls it, or why it cannot (an external-dns
// release whose method differs).
func (m zoneMethod) listing(next xprovider.Provider) zoneListing {
	how := m.method + "(ctx)"
	method := methodByName(reflect.ValueOf(next), m.method)
	if err := m.check(method); err != nil {
		return zoneListing{why: fmt.Sprintf("%T.%s is not the method this adapter knows: %v", next, m.method, err)}
	}
	return zoneListing{how: how, list: func(ctx context.Context) ([]string, error) {
		out := method.Call([]reflect.Value{reflect.ValueOf(ctx)})
		if err, _ := out[1].Interface().(error); err != nil {
			return nil, err
		}
		return m.names(out[0]), nil
	}}
}

// methodByName returns v's exported method called name, for the names
// [zoneMethods] uses. Each lookup passes a constant, which lets the linker
// keep only the methods of that name rather than every exported method of
// every type in the program.
func methodByName(v reflect.Value, name string) reflect.Value {
	switch name {
	case "Zones":
		return v.MethodByName("Zones")
	case "ListNamespaces":
		return v.MethodByName("ListNamespaces")
	}
	return reflect.Value{}
}

// check verifies the shape of method: func(context.Context) (T, error)
// with T a map or slice of structs, or pointers to structs, that have the
// fields as strings or pointers to strings.
func (m zoneMethod) check(method reflect.Value) error {
	if !method.IsValid() {
		return errors.New("no such method")
	}
	t := method.Type()
	if t.NumIn() != 1 || t.In(0) != reflect.TypeFor[context.Context]() || t.NumOut() != 2 || t.Out(1) != reflect.TypeFor[error]() {
		return fmt.Errorf("its type is %s", t)
	}
	list := t.Out(0)
	if list.Kind() != reflect.Map && list.Kind() != reflect.Slice {
		return fmt.Errorf("it returns a %s, not a map or slice", list)
	}
	zone := list.Elem()
	if zone.Kind() == reflect.Pointer {
		zone = zone.Elem()
	}
	if zone.Kind() != reflect.Struct {
		return fmt.Errorf("its zones are %s, not structs", list.Elem())
	}
	for _, name := range m.fields {
		f, ok := zone.FieldByName(name)
		if !ok {
			return fmt.Errorf("%s has no field %s", zone, name)
		}
		if ft := f.Type; ft.Kind() != reflect.String && (ft.Kind() != reflect.Pointer || ft.Elem().Kind() != reflect.String) {
			return fmt.Errorf("%s.%s is a %s, not a string", zone, name, ft)
		}
	}
	return nil
}

// names returns the zone names in list (a map or slice whose shape check
// accepted), sorted, without duplicates or empty names.
func (m zoneMethod) names(list reflect.Value) []string {
	var zones []reflect.Value
	switch list.Kind() {
	case reflect.Map:
		for it := list.MapRange(); it.Next(); {
			zones = append(zones, it.Value())
		}
	case reflect.Slice:
		for i := range list.Len() {
			zones = append(zones, list.Index(i))
		}
	}
	var names []string
	for _, z := range zones {
		if z.Kind() == reflect.Pointer {
			if z.IsNil() {
				continue
			}
			z = z.Elem()
		}
		values := make([]string, len(m.fields))
		for i, name := range m.fields {
			f := z.FieldByName(name)
			if f.Kind() == reflect.Pointer {
				if f.IsNil() {
					continue
				}
				f = f.Elem()
			}
			values[i] = f.String()
		}
		name := values[0]
		if m.name != nil {
			name = m.name(values)
		}
		if name != "" {
			names = append(names, name)
		}
	}
	return sortedZones(names)
}
