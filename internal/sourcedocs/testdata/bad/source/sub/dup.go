package sub

// First is fine.
//
//zonesync:source:name=dup
//zonesync:source:category=a
//zonesync:source:description=d
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=false
type First struct{}

// Second reuses the name in another category.
//
//zonesync:source:name=dup
//zonesync:source:category=b
//zonesync:source:description=d
//zonesync:source:resources=none
//zonesync:source:filters=none
//zonesync:source:namespaced=false
//zonesync:source:fqdn-template=false
//zonesync:source:events=false
type Second struct{}
