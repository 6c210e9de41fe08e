package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// NodeClaimGVR is Karpenter's NodeClaim (karpenter.sh/v1).
var NodeClaimGVR = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}

// unregisteredTaint is the taint a Karpenter node's kubelet registers with (Karpenter's bootstrap
// configuration adds it; Karpenter removes it once it has synced the node).
var unregisteredTaint = corev1.Taint{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}

// Registrar stands in for the kubelet of every instance Karpenter launches: when a NodeClaim has
// an instance (status.providerID) that is running in moto, and the cluster lets the instance's
// role in (nodeaccess.go: what EKS's authenticator decides for the kubelet's credentials), it
// registers the Node that instance's kubelet would — named by the instance's private DNS name,
// with the NodeClaim's providerID, labels and capacity, the NodeClaim's taints and startup taints
// and karpenter.sh/unregistered — and from then on kwok keeps it Ready and runs the pods bound to
// it. Karpenter (registration) takes over from there; it also deletes the Node when it terminates
// the instance. The registrar never deletes a Node. Registered lists what it registered, Refused
// the instances whose role the cluster did not let in (the kubelet never registers; Karpenter
// sees a NodeClaim that never registers).
type Registrar struct {
	mu         sync.Mutex
	registered []string // node names
	refused    []string
	errs       []string
	cancel     context.CancelFunc
	done       chan struct{}
	access     *nodeAccess
}

// startRegistrar polls the NodeClaims every 250 ms. stateDir holds the aws stand-in's EKS record
// (the cluster's authentication mode, its access entries).
func startRegistrar(cfg *rest.Config, awsCfg aws.Config, stateDir string) (*Registrar, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ec := ec2.NewFromConfig(awsCfg)
	ctx, cancel := context.WithCancel(context.Background())
	r := &Registrar{cancel: cancel, done: make(chan struct{}), access: &nodeAccess{iam: iam.NewFromConfig(awsCfg), kube: cs, record: standInEKSRecord(stateDir)}}
	go func() {
		defer close(r.done)
		for {
			if err := r.step(ctx, dyn, cs, ec); err != nil && ctx.Err() == nil {
				r.mu.Lock()
				if n := len(r.errs); n == 0 || r.errs[n-1] != err.Error() {
					r.errs = append(r.errs, err.Error())
				}
				r.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	return r, nil
}

func (r *Registrar) step(ctx context.Context, dyn dynamic.Interface, cs *kubernetes.Clientset, ec *ec2.Client) error {
	claims, err := dyn.Resource(NodeClaimGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil // no CRD (yet, or any more)
		}
		return err
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, n := range nodes.Items {
		have[n.Spec.ProviderID] = true
	}
	for _, claim := range claims.Items {
		providerID, _, _ := unstructured.NestedString(claim.Object, "status", "providerID")
		if providerID == "" || have[providerID] || claim.GetDeletionTimestamp() != nil {
			continue
		}
		id := providerID[strings.LastIndex(providerID, "/")+1:]
		out, err := ec.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
		if err != nil {
			return fmt.Errorf("DescribeInstances %s: %w", id, err)
		}
		if len(out.Reservations) == 0 || len(out.Reservations[0].Instances) == 0 {
			continue
		}
		inst := out.Reservations[0].Instances[0]
		if inst.State == nil || inst.State.Name != "running" {
			continue // a kubelet registers once its instance has booted
		}
		if why, err := r.access.refuses(ctx, inst); err != nil {
			return err
		} else if why != "" {
			r.refuse(fmt.Sprintf("%s (NodeClaim %s): %s", id, claim.GetName(), why))
			continue
		}
		node, err := nodeFor(claim, providerID, aws.ToString(inst.PrivateDnsName))
		if err != nil {
			return err
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{FieldManager: "kubelet"}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("register node %s for %s: %w", node.Name, claim.GetName(), err)
		}
		r.mu.Lock()
		r.registered = append(r.registered, node.Name)
		r.mu.Unlock()
	}
	return nil
}

// nodeFor is the Node the kubelet of a NodeClaim's instance registers.
func nodeFor(claim unstructured.Unstructured, providerID, name string) (*corev1.Node, error) {
	if name == "" {
		return nil, fmt.Errorf("NodeClaim %s: its instance has no private DNS name", claim.GetName())
	}
	labels := map[string]string{}
	for k, v := range claim.GetLabels() {
		labels[k] = v
	}
	labels[corev1.LabelHostname] = name
	var taints []corev1.Taint
	for _, field := range []string{"taints", "startupTaints"} {
		list, _, _ := unstructured.NestedSlice(claim.Object, "spec", field)
		for _, t := range list {
			m := t.(map[string]any)
			taint := corev1.Taint{Key: fmt.Sprint(m["key"]), Effect: corev1.TaintEffect(fmt.Sprint(m["effect"]))}
			if v, ok := m["value"].(string); ok {
				taint.Value = v
			}
			taints = append(taints, taint)
		}
	}
	taints = append(taints, unregisteredTaint)
	capacity, err := resources(claim, "capacity")
	if err != nil {
		return nil, err
	}
	allocatable, err := resources(claim, "allocatable")
	if err != nil {
		return nil, err
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: taints},
		Status:     corev1.NodeStatus{Capacity: capacity, Allocatable: allocatable},
	}, nil
}

func resources(claim unstructured.Unstructured, field string) (corev1.ResourceList, error) {
	m, _, _ := unstructured.NestedStringMap(claim.Object, "status", field)
	out := corev1.ResourceList{}
	for k, v := range m {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("NodeClaim %s status.%s.%s: %w", claim.GetName(), field, k, err)
		}
		out[corev1.ResourceName(k)] = q
	}
	return out, nil
}

// Registered are the nodes registered so far.
func (r *Registrar) Registered() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.registered...)
}

// Refused are the instances whose kubelet the cluster did not let in, and why (each once).
func (r *Registrar) Refused() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refused...)
}

func (r *Registrar) refuse(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.refused, why) {
		r.refused = append(r.refused, why)
	}
}

// Errors are the distinct errors the registrar met.
func (r *Registrar) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// Close stops the registrar.
func (r *Registrar) Close() {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
}
