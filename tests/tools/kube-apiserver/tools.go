//go:build tools

// Package tools records the kube-apiserver command as a dependency of this module.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
