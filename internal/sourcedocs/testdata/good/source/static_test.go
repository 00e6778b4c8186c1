package source

//zonesync:source:name=from-a-test-file
type testOnly struct{}
