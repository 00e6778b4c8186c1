module github.com/zonesync/zonesync

go 1.25.0

require (
	github.com/go-logr/logr v1.4.4
	github.com/miekg/dns v1.1.73
	github.com/stretchr/testify v1.12.1
	golang.org/x/net v0.58.0
	golang.org/x/sync v0.22.0
	golang.org/x/time v0.15.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
