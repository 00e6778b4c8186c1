module github.com/openshift/api

go 1.25

require (
	k8s.io/api v0.37.0
	k8s.io/apimachinery v0.37.0
)
