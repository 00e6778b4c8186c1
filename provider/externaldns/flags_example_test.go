package externaldns_test

import (
	"fmt"

	xinmemory "sigs.k8s.io/external-dns/provider/inmemory"

	"github.com/zonesync/zonesync/provider/externaldns"
)

// GivenFlags lists the flags a command line gives, whatever their values;
// in ProgramOptions.GivenFlags it lets CheckFlags (and NewProgram) name a
// flag that nothing uses even when it is given with its default value, as
// --log-level=info and --txt-prefix= are here.
func ExampleGivenFlags() {
	args := []string{
		"--provider=inmemory", "--inmemory-zone=example.org", "--source=empty", "--policy=sync",
		"--registry=noop", "--txt-prefix=", "--log-level=info", "--aws-zone-type=public", "--ingress-class=nginx",
	}
	given, err := externaldns.GivenFlags(args)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(given)
	cfg, err := externaldns.ParseFlags(args)
	if err != nil {
		fmt.Println(err)
		return
	}
	warnings, err := externaldns.CheckFlags(cfg, externaldns.ProgramOptions{
		Constructors: map[string]externaldns.Constructor{"inmemory": xinmemory.New},
		GivenFlags:   given,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range warnings {
		fmt.Println(w)
	}
	// Output:
	// [aws-zone-type ingress-class inmemory-zone log-level policy provider registry source txt-prefix]
	// --aws-zone-type: read only by --provider=aws or aws-sd; the provider is inmemory
	// --ingress-class: read only by --source=ingress; the sources are empty
	// --log-level: configures external-dns's binary (Kubernetes client, logs, metrics endpoint), not the reconcile loop; the program embedding zonesync sets it up its own way
	// --txt-prefix: read only by --registry=txt; the registry is noop
}
