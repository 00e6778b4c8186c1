module github.com/zonesync/zonesync

go 1.26.0

require (
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/hashicorp/errwrap v1.0.0 // indirect
	github.com/hashicorp/go-multierror v1.1.1 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.24.0 // indirect
	k8s.io/apimachinery v0.37.2 // indirect
)
