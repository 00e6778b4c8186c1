package source

// Static serves a fixed list.
//
//zonesync:source:name=static
//zonesync:source:category=core
//zonesync:source:description=A fixed list of endpoints given at construction.
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=false
type Static struct{}

// Unmarked has no markers and is not listed.
type Unmarked struct{}

type (
	// Empty serves nothing.
	//
	//zonesync:source:name=empty
	//zonesync:source:category=core
	//zonesync:source:description=No endpoints at all | ever.
	//zonesync:source:resources=none
	//zonesync:source:filters=none
	//zonesync:source:namespaced=false
	//zonesync:source:fqdn-template=false
	//zonesync:source:events=false
	Empty struct{}

	other struct{}
)
