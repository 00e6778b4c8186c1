package testdata

//zonesync:source:name=from-testdata
type ignored struct{}
