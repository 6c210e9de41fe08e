package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// The rest of a cluster, for the engine tests (tests/e2e) and `make demo`: what a managed control
// plane runs beside kube-apiserver — kube-controller-manager (garbage collector, Deployment,
// ReplicaSet, namespace, service account, node lifecycle and the other default controllers) and
// kube-scheduler, of the same release — and, standing in for the kubelets, kwok: it keeps the
// Nodes it manages Ready (with node leases, as kubelets renew them) and runs the pods bound to
// them (they become Running and Ready at once, and go when deleted). Nothing runs in a pod:
// a container's image is never pulled and its process never started.

// KwokVersion is the kwok that stands in for the kubelets (tests/toolpins/kwok).
const KwokVersion = "v0.8.0"

// KubeControllerManagerPath is the cached kube-controller-manager; KUBE_CONTROLLER_MANAGER overrides it.
func KubeControllerManagerPath() string {
	return kubernetesBinary("KUBE_CONTROLLER_MANAGER", "kube-controller-manager")
}

// KubeSchedulerPath is the cached kube-scheduler; KUBE_SCHEDULER overrides it.
func KubeSchedulerPath() string { return kubernetesBinary("KUBE_SCHEDULER", "kube-scheduler") }

// KwokPath is the cached kwok binary; KWOK overrides it. Its stage configuration
// (KwokStagesPath) is installed next to it.
func KwokPath() string {
	if p := os.Getenv("KWOK"); p != "" {
		return p
	}
	return filepath.Join(repo.CacheDir(), "bin", "kwok-"+KwokVersion, "kwok")
}

// KwokStagesPath is the stage configuration tests/harness/install-deps.sh writes next to kwok:
// kwok's own "fast" node and pod stages and its node heartbeat with leases.
func KwokStagesPath() string { return filepath.Join(filepath.Dir(KwokPath()), "stages.yaml") }

// disabledControllers are the kube-controller-manager controllers (of the default set) that
// need what this cluster has not: a pod network to allocate (node IPAM, routes), a cloud provider
// (cloud node lifecycle, service load balancers) or a CA key to sign certificates with.
var disabledControllers = []string{
	"node-ipam-controller",
	"node-route-controller",
	"cloud-node-lifecycle-controller",
	"service-lb-controller",
	"certificatesigningrequest-signing-controller",
}

// systemNamespaces exist from the API server's start; kube-controller-manager gives each a
// `default` ServiceAccount and the kube-root-ca.crt ConfigMap.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// StartControllers starts kube-controller-manager, kube-scheduler and kwok against the control
// plane (each logging to a file under Dir, stopped by Stop) and waits until the controller
// manager has done its first work: every system namespace has its `default` ServiceAccount and
// its kube-root-ca.crt ConfigMap, so a snapshot taken afterwards is the cluster's steady state.
// Pods are scheduled only once nodes exist (AddNodes).
func (cp *ControlPlane) StartControllers(ctx context.Context) error {
	for _, bin := range []string{KubeControllerManagerPath(), KubeSchedulerPath(), KwokPath(), KwokStagesPath()} {
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("%s is missing (run tests/harness/install-deps.sh or `make deps`): %w", bin, err)
		}
	}
	kubeconfig := filepath.Join(cp.Dir, "admin.kubeconfig")
	kc, err := cp.Kubeconfig()
	if err != nil {
		return err
	}
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		return err
	}
	// --secure-port=0: no serving (several clusters run side by side; nothing probes them).
	// --leader-elect=false: one instance each.
	if err := cp.spawn("kube-controller-manager", KubeControllerManagerPath(),
		"--kubeconfig="+kubeconfig,
		"--secure-port=0", "--leader-elect=false",
		"--controllers=*,-"+strings.Join(disabledControllers, ",-"),
		"--service-account-private-key-file="+filepath.Join(cp.Dir, "sa.key"),
		"--root-ca-file="+filepath.Join(cp.Dir, "certs", "apiserver.crt"),
		"--use-service-account-credentials=false",
		"--v=0",
	); err != nil {
		return err
	}
	if err := cp.spawn("kube-scheduler", KubeSchedulerPath(),
		"--kubeconfig="+kubeconfig, "--secure-port=0", "--leader-elect=false", "--v=0",
	); err != nil {
		return err
	}
	// --manage-all-nodes: every Node is a simulated one (the system nodes, and later the nodes
	// registered for instances Karpenter launches). --node-lease-duration-seconds: kwok renews
	// each node's Lease, so the node lifecycle controller sees them alive.
	if err := cp.spawn("kwok", KwokPath(),
		"--kubeconfig="+kubeconfig, "--manage-all-nodes=true", "--config="+KwokStagesPath(),
		"--node-lease-duration-seconds=40",
	); err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	return cp.waitFor(ctx, 60*time.Second, func() error {
		for _, ns := range systemNamespaces {
			if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("kube-controller-manager: ServiceAccount %s/default: %w", ns, err)
			}
			if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("kube-controller-manager: ConfigMap %s/kube-root-ca.crt: %w", ns, err)
			}
		}
		return nil
	})
}

// Node is a simulated node (kwok) of a node group the cluster has before Karpenter: a managed node
// group or Fargate in a real cluster, where the Karpenter controller itself runs.
type Node struct {
	Name         string
	Zone         string            // topology.kubernetes.io/zone
	Region       string            // topology.kubernetes.io/region
	InstanceType string            // node.kubernetes.io/instance-type
	CPU, Memory  string            // allocatable (capacity is the same)
	Pods         int               // allocatable pods
	Labels       map[string]string // more labels (e.g. eks.amazonaws.com/nodegroup)
}

// AddNodes registers nodes (as a kubelet registers its own) and waits until each is Ready and
// schedulable: kwok set its Ready condition and the node lifecycle controller removed the
// not-ready taint every new node starts with.
func (cp *ControlPlane) AddNodes(ctx context.Context, nodes []Node) error {
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		labels := map[string]string{
			corev1.LabelHostname:           n.Name,
			corev1.LabelOSStable:           "linux",
			corev1.LabelArchStable:         "amd64",
			corev1.LabelTopologyZone:       n.Zone,
			corev1.LabelTopologyRegion:     n.Region,
			corev1.LabelInstanceTypeStable: n.InstanceType,
		}
		for k, v := range n.Labels {
			labels[k] = v
		}
		resources := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(n.CPU),
			corev1.ResourceMemory: resource.MustParse(n.Memory),
			corev1.ResourcePods:   *resource.NewQuantity(int64(n.Pods), resource.DecimalSI),
		}
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: labels},
			// A kubelet reports capacity in the node it creates; kwok's stage keeps it.
			Status: corev1.NodeStatus{Capacity: resources, Allocatable: resources},
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	return cp.waitFor(ctx, 60*time.Second, func() error {
		for _, n := range nodes {
			node, err := cs.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !nodeReady(node) {
				return fmt.Errorf("node %s is not Ready (kwok)", n.Name)
			}
			if len(node.Spec.Taints) > 0 {
				return fmt.Errorf("node %s still has taints %v (node lifecycle controller)", n.Name, node.Spec.Taints)
			}
		}
		return nil
	})
}

func nodeReady(n *corev1.Node) bool {
	return slices.ContainsFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool {
		return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	})
}

// ProbeScheduling proves the controllers work together before a test relies on them: a pod in
// namespace kube-system is scheduled onto a node (kube-scheduler), runs (kwok), and once deleted
// is gone (kwok's pod-delete stage). It leaves nothing behind but events.
func (cp *ControlPlane) ProbeScheduling(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	pods := cs.CoreV1().Pods("kube-system")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "harness-scheduling-probe"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "probe", Image: "registry.invalid/probe:never-pulled"}},
		},
	}
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("scheduling probe: %w", err)
	}
	err = cp.waitFor(ctx, 60*time.Second, func() error {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Spec.NodeName == "" || p.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("scheduling probe: node %q, phase %s (kube-scheduler, kwok): %v", p.Spec.NodeName, p.Status.Phase, p.Status.Conditions)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	return cp.waitFor(ctx, 60*time.Second, func() error {
		_, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return errors.Join(err, errors.New("scheduling probe: the deleted pod is still there (kwok)"))
	})
}
