package endpoint_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zonesync/zonesync/endpoint"
)

func ExampleNewEndpoint() {
	ep := endpoint.NewEndpoint("www.example.com.", endpoint.RecordTypeCNAME, "lb.example.net.").
		WithLabel(endpoint.OwnerLabelKey, "default").
		WithProviderSpecific(endpoint.ProviderSpecificAlias, "false")
	fmt.Println(ep.DNSName, ep.Targets, ep.Key())

	data, _ := json.Marshal(ep)
	fmt.Println(string(data))

	// Constructors never fail; Validate reports what is wrong.
	bad := endpoint.NewEndpoint("a..example.com", endpoint.RecordTypeA, "2001:db8::1")
	fmt.Println(bad.Validate())
	// Output:
	// www.example.com lb.example.net www.example.com/CNAME
	// {"dnsName":"www.example.com","targets":["lb.example.net"],"recordType":"CNAME","labels":{"owner":"default"},"providerSpecific":[{"name":"alias","value":"false"}]}
	// invalid endpoint a..example.com/A: dnsName: DNS name "a..example.com" has an empty label
	// targets[0]: A target "2001:db8::1" is not an IPv4 address
}

func ExampleDomainFilter_Match() {
	df := endpoint.NewDomainFilterWithExclusions(
		[]string{"Example.COM.", "xn--bcher-kva.example"},
		[]string{"internal.example.com"},
	)
	for _, name := range []string{
		"example.com",
		"www.example.com.",
		"myexample.com",
		"db.internal.example.com",
		"shop.BÜCHER.example",
	} {
		fmt.Println(name, df.Match(name))
	}
	data, _ := json.Marshal(df)
	fmt.Println(string(data))
	// Output:
	// example.com true
	// www.example.com. true
	// myexample.com false
	// db.internal.example.com false
	// shop.BÜCHER.example true
	// {"include":["bücher.example","example.com"],"exclude":["internal.example.com"]}
}

func ExampleLabels_Serialize() {
	labels := endpoint.LabelsFromMap(map[string]string{
		endpoint.OwnerLabelKey:    "default",
		endpoint.ResourceLabelKey: "ingress/default/web",
	})
	// With quotes, as stored in the ownership TXT record.
	fmt.Println(labels.Serialize(true))
	fmt.Println(labels.Serialize(false))
	// Output:
	// "heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"
	// heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web
}

func ExampleParseLabels() {
	labels, err := endpoint.ParseLabels(`"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	owner, _ := labels.Get(endpoint.OwnerLabelKey)
	resource, _ := labels.Get(endpoint.ResourceLabelKey)
	fmt.Println(owner, resource)

	// A TXT record that is not an ownership record.
	_, err = endpoint.ParseLabels(`"v=spf1 -all"`)
	fmt.Println(errors.Is(err, endpoint.ErrInvalidHeritage))
	// Output:
	// default service/default/app
	// true
}

func ExampleTargets_Same() {
	a := endpoint.Targets{"2001:DB8::1", "LB.example.com"}
	b := endpoint.Targets{"lb.example.com", "2001:db8:0::1"}
	fmt.Println(a.Same(b))
	fmt.Println(endpoint.Targets{"a", "a", "b"}.Same(endpoint.Targets{"a", "b", "b"}))
	// Output:
	// true
	// false
}

func ExampleToUnicode() {
	fmt.Println(endpoint.ToUnicode("WWW.Example.COM."))
	fmt.Println(endpoint.ToUnicode("shop.xn--bcher-kva.example"))
	// Output:
	// www.example.com
	// shop.bücher.example
}

func ExampleParseLabelsWithKey() {
	// The upstream external-dns test vector: a 32-byte key used verbatim.
	key, err := endpoint.ParseEncryptionKey([]byte(")K_Fy|?Z.64#UuHm`}[d!GC%WJM_fs{_"))
	if err != nil {
		fmt.Println(err)
		return
	}
	text := `"+lvP8q9KHJ6BS6O81i2Q6DLNdf2JSKy8j/gbZKviTZlGYj7q+yDoYMgkQ1hPn6urtGllM5bfFMcaaHto52otQtiOYrX8990J3kQqg4s47m3bH3Ejl8RSxSSuWJM3HJtPghQzYg0/LSOsdQ0="`
	labels, err := endpoint.ParseLabelsWithKey(text, key)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(labels.Serialize(false))
	nonce, _ := labels.Get(endpoint.TxtEncryptionNonceLabelKey)
	fmt.Println(nonce)

	// The kept nonce makes re-encryption reproduce the stored value.
	again, _ := labels.SerializeEncrypted(key, true)
	fmt.Println(again == text)
	// Output:
	// heritage=external-dns,external-dns/owner=foo-owner,external-dns/resource=foo-resource
	// +lvP8q9KHJ6BS6O8
	// true
}

func ExampleMatchAllDomainFilters() {
	filters := endpoint.MatchAllDomainFilters{
		endpoint.NewDomainFilter([]string{"example.com"}),
		endpoint.NewDomainFilterWithExclusions(nil, []string{"internal.example.com"}),
		nil, // matches everything
	}
	fmt.Println(filters.Match("www.example.com"))
	fmt.Println(filters.Match("db.internal.example.com"))
	fmt.Println(filters.Match("www.example.org"))
	// Output:
	// true
	// false
	// false
}

func ExampleToALabel() {
	fmt.Println(endpoint.ToALabel("WWW.Example.COM."))
	fmt.Println(endpoint.ToALabel("Shop.Bücher.example"))
	// Output:
	// www.example.com
	// shop.xn--bcher-kva.example
}

// Labels is a small value: set, read and delete labels, iterate them in key
// order; a copy is independent of the original.
func ExampleLabels() {
	var labels endpoint.Labels // the zero value holds no labels
	labels.Set(endpoint.ResourceLabelKey, "service/default/app")
	labels.Set(endpoint.OwnerLabelKey, "default")

	owner, ok := labels.Get(endpoint.OwnerLabelKey)
	fmt.Println(owner, ok, labels.Len())

	other := labels
	other.Set(endpoint.OwnerLabelKey, "someone-else")
	other.Delete(endpoint.ResourceLabelKey)
	for k, v := range labels.All() {
		fmt.Println(k, v)
	}
	for k, v := range other.All() {
		fmt.Println(k, v)
	}
	// Output:
	// default true 2
	// owner default
	// resource service/default/app
	// owner someone-else
}
