package source

// Missing lacks two keys.
//
//zonesync:source:name=missing
//zonesync:source:category=core
//zonesync:source:description=d
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
type Missing struct{}

// Wrong has every kind of bad line.
//
//zonesync:source:name=wrong
//zonesync:source:category=core
//zonesync:source:description=d
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=maybe
//zonesync:source:fqdn-template=false
//zonesync:source:events=false
//zonesync:source:events=true
//zonesync:source:colour=blue
//zonesync:source:noequals
//zonesync:source:resources=
type Wrong struct{}

// Function is not a type.
//
//zonesync:source:name=function
func Function() {}

//zonesync:source:name=variable
var variable int

// Visible has its markers in the form go doc shows.
//
// +zonesync:source:name=visible
//
//	+zonesync:source:category=core
type Visible struct{}

// A marker separated from its type by a blank line is in no doc comment.
//
//zonesync:source:name=stray

type Stray struct{}

// Fielded has a marker on a field.
type Fielded struct {
	// X is a field.
	//
	//zonesync:source:config=X
	X int
}
