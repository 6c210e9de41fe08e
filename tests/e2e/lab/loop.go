package lab

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Loop puts the real Karpenter controller in a world's loop: the cluster's VPC in moto (the world's),
// the recorder of the controller's AWS calls in front of moto (with its moto fix-ups), the
// controller process beside the pods of the component's Deployment kube-system/karpenter, and the
// registrar standing in for the kubelets of the instances it launches.
type Loop struct {
	VPC        *VPC
	Recorder   *AWSRecorder
	Controller *Karpenter
	Registrar  *Registrar
}

// StartLoop starts the loop in w, with the controller's files under dir. Close stops it. The
// account has used Spot before (its Spot service-linked role exists: the loop's pool is Spot),
// unless w.NoSpotHistory.
// The EKS cluster the program makes reports the world's API server as its OIDC issuer (it signs
// the controller's web identity tokens); a loop's world makes one cluster.
func (w *World) StartLoop(dir string) (l *Loop, err error) {
	l = &Loop{VPC: w.VPC}
	w.Engine.SetEnv("STANDIN_EKS_OIDC_ISSUER", w.ControlPlane.Issuer)
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	ctx := context.Background()
	if !w.NoSpotHistory {
		if err := w.SeedSpotServiceLinkedRole(ctx); err != nil {
			return l, err
		}
	}
	cs, err := kubernetes.NewForConfig(w.ControlPlane.Config)
	if err != nil {
		return l, err
	}
	if l.Recorder, err = startAWSRecorder(w.Moto.URL, w.AWS, cs, standInEKSRecord(w.StateDir)); err != nil {
		return l, err
	}
	if l.Controller, err = startKarpenter(w.ControlPlane, filepath.Join(dir, "karpenter"), "kube-system", "karpenter", l.Recorder.URL, w.AWS, standInEKSRecord(w.StateDir)); err != nil {
		return l, err
	}
	if l.Registrar, err = startRegistrar(w.ControlPlane.Config, w.AWS, w.StateDir); err != nil {
		return l, err
	}
	return l, nil
}

// Close stops the registrar, the controller and the recorder. Safe on a partly started loop.
func (l *Loop) Close() {
	if l == nil {
		return
	}
	l.Registrar.Close()
	l.Controller.Close()
	l.Recorder.Close()
}

// Inputs are the component inputs that let the controller launch nodes here (the program tags the
// VPC for discovery): tags for every AWS resource (they reach the node class, so the instances); a
// node class on an image moto has (the default class's al2023@latest, resolved through the SSM
// parameters the world's moto serves, runs in TestKarpenterUpgrade); and a Spot pool of two
// instance types that consolidates an empty node after 5 s.
// nodeClassExtra is added to the class (YAML, indented under it).
func (l *Loop) Inputs(nodeClassExtra string) string {
	return l.InputsWithImage("    amiFamily: AL2023\n    amiSelectorTerms:\n      - id: ami-ekslinux\n", nodeClassExtra)
}

// InputsWithImage are Inputs with the class's image chosen by image (YAML, indented under the
// class): an alias, say, which the controller resolves through the SSM parameters moto serves.
func (l *Loop) InputsWithImage(image, nodeClassExtra string) string {
	return `tags:
  team: platform
nodeClasses:
  - name: default
` + image + nodeClassExtra + `nodePools:
  - name: default
    nodeClassRef: default
    requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: [spot]
      - key: node.kubernetes.io/instance-type
        operator: In
        values: [m5.large, m5.xlarge]
    disruption:
      consolidationPolicy: WhenEmptyOrUnderutilized
      consolidateAfter: 5s
`
}

// WorkloadName is the workload's Deployment in namespace default.
const WorkloadName = "inflate"

// ScaleWorkload creates or scales the workload: a Deployment whose pods (500m CPU, 512 MiB each)
// only a Karpenter node takes — their node selector names the pool's label, which the system
// nodes lack.
func ScaleWorkload(ctx context.Context, cs *kubernetes.Clientset, replicas int32) error {
	return ScaleWorkloadOn(ctx, cs, replicas, nil)
}

// ScaleWorkloadOn is ScaleWorkload with more of the pods' node selector (an instance type, say;
// or another pool than `default`).
func ScaleWorkloadOn(ctx context.Context, cs *kubernetes.Clientset, replicas int32, nodeSelector map[string]string) error {
	return ScaleWorkloadTolerating(ctx, cs, replicas, nodeSelector, nil)
}

// ScaleWorkloadTolerating is ScaleWorkloadOn with tolerations (of a pool's taints).
func ScaleWorkloadTolerating(ctx context.Context, cs *kubernetes.Clientset, replicas int32, nodeSelector map[string]string, tolerations []corev1.Toleration) error {
	selector := map[string]string{"karpenter.sh/nodepool": "default"}
	for k, v := range nodeSelector {
		selector[k] = v
	}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: WorkloadName, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": WorkloadName}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": WorkloadName}},
				Spec: corev1.PodSpec{
					NodeSelector:                  selector,
					Tolerations:                   tolerations,
					TerminationGracePeriodSeconds: aws.Int64(0),
					Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")}}}},
				},
			},
		},
	}
	deps := cs.AppsV1().Deployments("default")
	_, err := deps.Get(ctx, dep.Name, metav1.GetOptions{})
	switch {
	case err == nil:
		_, err = deps.Update(ctx, dep, metav1.UpdateOptions{})
	case apierrors.IsNotFound(err):
		_, err = deps.Create(ctx, dep, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("workload %s: %w", WorkloadName, err)
	}
	return nil
}

// DeleteWorkload removes the workload (the user's, not the stack's).
func DeleteWorkload(ctx context.Context, cs *kubernetes.Clientset) error {
	err := cs.AppsV1().Deployments("default").Delete(ctx, WorkloadName, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return errors.Join(err)
}

// WaitWorkload waits until the workload's replicas pods all run on the node of one instance that
// runs in moto (a Karpenter node: the system nodes have no instance), none of the instances not,
// and returns that instance. The error after timeout says what was last seen.
func WaitWorkload(ctx context.Context, cs *kubernetes.Clientset, awsCfg aws.Config, replicas int, timeout time.Duration, not ...string) (Instance, error) {
	deadline := time.Now().Add(timeout)
	for {
		i, err := workloadInstance(ctx, cs, awsCfg, replicas, not)
		if err == nil {
			return i, nil
		}
		if time.Now().After(deadline) {
			return Instance{}, fmt.Errorf("%d workload pods on a Karpenter node: not within %s: %w", replicas, timeout, err)
		}
		select {
		case <-ctx.Done():
			return Instance{}, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func workloadInstance(ctx context.Context, cs *kubernetes.Clientset, awsCfg aws.Config, replicas int, not []string) (Instance, error) {
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + WorkloadName})
	if err != nil {
		return Instance{}, err
	}
	nodes := map[string]bool{}
	var live int
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		live++
		if p.Status.Phase != corev1.PodRunning || p.Spec.NodeName == "" {
			return Instance{}, fmt.Errorf("pod %s: %s on %q", p.Name, p.Status.Phase, p.Spec.NodeName)
		}
		nodes[p.Spec.NodeName] = true
	}
	if live != replicas || len(nodes) != 1 {
		return Instance{}, fmt.Errorf("%d pods on %d nodes", live, len(nodes))
	}
	for name := range nodes {
		node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return Instance{}, err
		}
		id := node.Spec.ProviderID[strings.LastIndex(node.Spec.ProviderID, "/")+1:]
		if slices.Contains(not, id) {
			return Instance{}, fmt.Errorf("the pods still run on %s (%s)", name, id)
		}
		instances, _, err := ReadEC2(ctx, awsCfg)
		if err != nil {
			return Instance{}, err
		}
		for _, i := range instances {
			if i.ID == id && i.State == "running" {
				return i, nil
			}
		}
		return Instance{}, fmt.Errorf("node %s: instance %q is not running", name, id)
	}
	return Instance{}, errors.New("no node")
}
