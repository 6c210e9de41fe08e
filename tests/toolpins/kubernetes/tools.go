//go:build tools

// Package tools records the control-plane commands the harness and the engine tests run as
// dependencies of this module: one module, so the three share one dependency graph and one
// build (kube-controller-manager and kube-scheduler reuse most of kube-apiserver's packages).
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
