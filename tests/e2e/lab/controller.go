package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// controllerContainer is the controller's container in the chart's Deployment.
const controllerContainer = "controller"

// Karpenter runs the real Karpenter controller for the component's Deployment, the way the
// cluster would: while a pod of the Deployment is Ready (kube-scheduler placed it on a system
// node, kwok runs it — but kwok starts no process), one controller process runs beside it with
// that pod's environment, resolved as the kubelet resolves it (values, fieldRefs,
// resourceFieldRefs), the pod's identities as the cluster gives them (podIdentity: its service
// account's token, and IRSA's or EKS Pod Identity's credentials environment), plus the named
// test-world overrides below. When that pod goes (an upgrade
// rolls the Deployment, the release is uninstalled) the process is stopped, as the pod's would
// be, and started again beside the next Ready pod, if any. One process stands for the replicas'
// leader (leader election is off: nothing else competes). Only pods of a version whose controller
// is built here (the tag of their controller image: KarpenterVersion, KarpenterPreviousVersion)
// get one.
type Karpenter struct {
	Namespace, Deployment string

	cp          *harness.ControlPlane
	cs          *kubernetes.Clientset
	dir         string
	awsEndpoint string
	eksRecord   string
	awsCfg      aws.Config

	mu       sync.Mutex
	proc     *harness.Process
	podUID   string
	env      []string
	history  []string // "started beside <pod>" / "stopped: ..." with times, for failure messages
	note1    string   // the last note, not repeated
	stops    []time.Time
	versions []string // the version of each process started, in order
	runs     int
	cancel   context.CancelFunc
	done     chan struct{}
}

// karpenterOverrides are the environment the test world sets for the controller process on top
// of its pod's (and of what identity.go gives it as EKS's webhooks would): each stands for
// something the cluster gives a pod and a process beside it lacks.
func karpenterOverrides(awsEndpoint string) (map[string]string, error) {
	ports, err := freePortsN(2)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		// The pod's AWS credentials come from its service account (identity.go); no instance
		// metadata service answers here, and the SDK would wait for it.
		"AWS_EC2_METADATA_DISABLED": "true",
		// AWS is moto, through the recorder of the controller's calls. STS too: the SDK makes the
		// web identity credentials' STS client before it reads AWS_ENDPOINT_URL (aws-sdk-go-v2
		// config resolves credentials before the base endpoint); the service's own variable is
		// read when that client is made.
		"AWS_ENDPOINT_URL":     awsEndpoint,
		"AWS_ENDPOINT_URL_STS": awsEndpoint,
		// A pod's ports are its own; a process shares the machine's (they bind all interfaces).
		"METRICS_PORT":      strconv.Itoa(ports[0]),
		"HEALTH_PROBE_PORT": strconv.Itoa(ports[1]),
		// The replicas elect a leader through a Lease in the pod's namespace, which a process out
		// of cluster cannot infer; one process runs, so it leads.
		"DISABLE_LEADER_ELECTION": "true",
		// The pods' stdout goes to the cluster's logs; the process's to its log file.
		"LOG_LEVEL": "debug",
		// The cluster's Kubernetes version as EKS reports it (DescribeCluster, which the recorder
		// answers from the aws stand-in's record: fixups.go), not the API server's: the world's
		// API server is v1.33.3 whatever version the cluster has, so a cluster upgrade would never
		// reach the controller. The chart's settings.eksControlPlane sets the same variable.
		"EKS_CONTROL_PLANE": "true",
	}, nil
}

// startKarpenter watches namespace/deployment and runs the controller as described on Karpenter,
// with its files under dir. The controller's AWS calls go to awsEndpoint (the recorder); the
// cluster it is configured for must exist in moto's EKS (awsCfg); its pod identity associations
// are the aws stand-in's EKS record eksRecord.
func startKarpenter(cp *harness.ControlPlane, dir, namespace, deployment, awsEndpoint string, awsCfg aws.Config, eksRecord string) (*Karpenter, error) {
	// The default release's controller, which every world runs, must be there; the previous one's
	// only where a pod of its version comes up (`make demo` does not build it: start says so).
	if err := controllerInCache(KarpenterVersion); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return nil, err
	}
	k := &Karpenter{Namespace: namespace, Deployment: deployment, cp: cp, cs: cs, dir: dir, awsCfg: awsCfg, awsEndpoint: awsEndpoint, eksRecord: eksRecord, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	k.cancel = cancel
	go k.loop(ctx)
	return k, nil
}

// writeControllerKubeconfig: the API server's address, its CA (the serving certificate
// kube-apiserver generated and its self-signed CA, which a pod gets as ca.crt; the controller
// puts it into the nodes' bootstrap configuration), and the pod's service-account token — the
// pod's in-cluster configuration, as a file.
func writeControllerKubeconfig(cp *harness.ControlPlane, path, token string) error {
	ca, err := os.ReadFile(filepath.Join(cp.Dir, "certs", "apiserver.crt"))
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["cluster"] = &clientcmdapi.Cluster{Server: cp.URL, CertificateAuthorityData: ca}
	cfg.AuthInfos["karpenter"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["cluster"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: "karpenter"}
	cfg.CurrentContext = "cluster"
	return clientcmd.WriteToFile(*cfg, path)
}

func (k *Karpenter) loop(ctx context.Context) {
	defer close(k.done)
	for {
		k.step(ctx)
		select {
		case <-ctx.Done():
			k.stop("the test world stopped")
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// step starts or stops the process for the Deployment's current pods.
func (k *Karpenter) step(ctx context.Context) {
	pod, err := k.readyPod(ctx)
	if err != nil {
		return // the API server is busy or going; try again
	}
	k.mu.Lock()
	running, current := k.proc != nil, k.podUID
	exited := running && k.proc.Exited()
	k.mu.Unlock()
	switch {
	case running && exited:
		k.stop("exited on its own (log: " + k.proc.Log + ")")
	case running && (pod == nil || string(pod.UID) != current):
		if gone, err := k.podGone(ctx, current); err == nil && gone {
			k.stop("its pod is gone")
		}
	case !running && pod != nil && !builtController(imageTag(pod)):
		// Only these releases' controllers are built here; another version's pods run without one.
		k.note("no controller beside pod %s: its image is Karpenter %q, the controllers here are %s and %s", pod.Name,
			imageTag(pod), KarpenterVersion, KarpenterPreviousVersion)
	case !running && pod != nil:
		if err := k.start(ctx, pod); err != nil {
			k.note("not started beside %s: %v", pod.Name, err)
		}
	}
}

// readyPod is the newest Ready pod of the Deployment that is not being deleted (nil: none, or no
// Deployment).
func (k *Karpenter) readyPod(ctx context.Context) (*corev1.Pod, error) {
	dep, err := k.cs.AppsV1().Deployments(k.Namespace).Get(ctx, k.Deployment, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil {
		return nil, err
	}
	pods, err := k.cs.CoreV1().Pods(k.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var ready []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && podReady(&p) {
			ready = append(ready, p)
		}
	}
	if len(ready) == 0 {
		return nil, nil
	}
	sort.Slice(ready, func(a, b int) bool { return ready[a].CreationTimestamp.After(ready[b].CreationTimestamp.Time) })
	return &ready[0], nil
}

// Versions are the versions of the processes started so far, in order.
func (k *Karpenter) Versions() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.versions...)
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podGone: the pod with that uid no longer exists or is being deleted.
func (k *Karpenter) podGone(ctx context.Context, uid string) (bool, error) {
	pods, err := k.cs.CoreV1().Pods(k.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, p := range pods.Items {
		if string(p.UID) == uid {
			return p.DeletionTimestamp != nil, nil
		}
	}
	return true, nil
}

func (k *Karpenter) start(ctx context.Context, pod *corev1.Pod) error {
	if err := controllerInCache("v" + imageTag(pod)); err != nil {
		return err
	}
	env, err := podEnv(ctx, k.cs, pod, controllerContainer)
	if err != nil {
		return err
	}
	if err := k.checkEKSCluster(ctx, env["CLUSTER_NAME"]); err != nil {
		return err
	}
	k.mu.Lock()
	run := k.runs + 1
	k.mu.Unlock()
	identity, err := k.podIdentity(ctx, pod, env["CLUSTER_NAME"], run)
	if err != nil {
		return err
	}
	// New ports for each process: another process may have taken the last ones since. One
	// that is taken between the pick and the bind makes the process exit; step then starts the
	// next with new ones (the clash retry moto and the API server get from RetryPortClash).
	overrides, err := karpenterOverrides(k.awsEndpoint)
	if err != nil {
		return err
	}
	for _, m := range []map[string]string{identity, overrides} {
		for key, v := range m {
			env[key] = v
		}
	}
	// Nothing of the runner's but PATH: the process's own HOME and no shared AWS config or
	// credentials files, so the SDK can find no identity but the one the cluster gives the pod
	// (a runner's ~/.aws or AWS_* variables would otherwise stand behind a refused one).
	list := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + k.dir, "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull}
	for _, key := range sortedKeys(env) {
		list = append(list, key+"="+env[key])
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.runs = run
	proc, err := harness.StartProcess(k.dir, fmt.Sprintf("karpenter-%d", k.runs), karpenterControllerPath("v"+imageTag(pod)), list)
	if err != nil {
		return err
	}
	k.proc, k.podUID, k.env = proc, string(pod.UID), list
	awsID := "AWS: no role (the service account has no " + irsaRoleAnnotation + " annotation)"
	switch {
	case identity["AWS_ROLE_ARN"] != "":
		awsID = "AWS: IRSA, role " + identity["AWS_ROLE_ARN"]
	case identity["AWS_CONTAINER_CREDENTIALS_FULL_URI"] != "":
		awsID = "AWS: EKS Pod Identity (the association of the service account)"
	}
	k.history = append(k.history, fmt.Sprintf("%s started Karpenter %s beside pod %s (node %s) as service account %s/%s, %s; log %s",
		time.Now().Format("15:04:05.000"), imageTag(pod), pod.Name, pod.Spec.NodeName, pod.Namespace, pod.Spec.ServiceAccountName, awsID, proc.Log))
	k.versions = append(k.versions, imageTag(pod))
	return nil
}

// podIdentity is what the cluster gives the pod to act as (identity.go): a kubeconfig with its
// service account's token, and the AWS credentials' environment EKS's pod identity webhook
// injects for that account.
func (k *Karpenter) podIdentity(ctx context.Context, pod *corev1.Pod, cluster string, run int) (map[string]string, error) {
	// The kubelet's projected service-account token: an hour, renewed before it expires (no
	// scenario runs that long).
	token, err := serviceAccountToken(ctx, k.cs, pod, nil, 3607)
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(k.dir, fmt.Sprintf("kubeconfig-%d", run))
	if err := writeControllerKubeconfig(k.cp, kubeconfig, token); err != nil {
		return nil, err
	}
	write := func(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }
	env := map[string]string{"KUBECONFIG": kubeconfig}
	// Both webhooks may inject; the SDK's credential chain prefers the web identity.
	irsa, err := irsaEnv(ctx, k.cs, pod, filepath.Join(k.dir, fmt.Sprintf("web-identity-token-%d", run)), write)
	if err != nil {
		return nil, err
	}
	pi, err := podIdentityEnv(ctx, k.cs, k.eksRecord, cluster, k.awsEndpoint, pod, filepath.Join(k.dir, fmt.Sprintf("pod-identity-token-%d", run)), write)
	if err != nil {
		return nil, err
	}
	for _, m := range []map[string]string{pi, irsa} {
		for key, v := range m {
			env[key] = v
		}
	}
	return env, nil
}

func (k *Karpenter) stop(why string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.proc == nil {
		return
	}
	k.proc.Stop()
	k.stops = append(k.stops, time.Now())
	k.history = append(k.history, fmt.Sprintf("%s stopped: %s", time.Now().Format("15:04:05.000"), why))
	k.proc, k.podUID = nil, ""
}

func (k *Karpenter) note(format string, a ...any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	msg := fmt.Sprintf(format, a...)
	if msg != k.note1 {
		k.note1 = msg
		k.history = append(k.history, time.Now().Format("15:04:05.000")+" "+msg)
	}
}

// checkEKSCluster checks that the cluster the controller is configured for exists in moto's EKS:
// the program made it (aws:eks:Cluster through the aws stand-in), and the controller's
// DescribeCluster at start reads it there. A pod naming another cluster is the program's mistake,
// which a real controller would report by failing to start.
func (k *Karpenter) checkEKSCluster(ctx context.Context, name string) error {
	if name == "" {
		return errors.New("the pod has no CLUSTER_NAME")
	}
	_, err := eks.NewFromConfig(k.awsCfg).DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err != nil {
		return fmt.Errorf("the controller's cluster %s is not in moto's EKS (the program makes it): %w", name, err)
	}
	return nil
}

// podEnv resolves a container's environment as the kubelet does: literal values, and values
// from the pod's fields, the container's resources, ConfigMaps and Secrets.
func podEnv(ctx context.Context, cs *kubernetes.Clientset, pod *corev1.Pod, container string) (map[string]string, error) {
	var c *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == container {
			c = &pod.Spec.Containers[i]
		}
	}
	if c == nil {
		return nil, fmt.Errorf("pod %s has no container %q", pod.Name, container)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
			continue
		}
		switch from := e.ValueFrom; {
		case from.FieldRef != nil:
			v, err := podField(pod, from.FieldRef.FieldPath)
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			env[e.Name] = v
		case from.ResourceFieldRef != nil:
			node, err := cs.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("env %s: the pod's node: %w", e.Name, err)
			}
			v, err := containerResource(c, from.ResourceFieldRef, node.Status.Allocatable)
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			env[e.Name] = v
		case from.ConfigMapKeyRef != nil:
			cm, err := cs.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, from.ConfigMapKeyRef.Name, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			env[e.Name] = cm.Data[from.ConfigMapKeyRef.Key]
		case from.SecretKeyRef != nil:
			s, err := cs.CoreV1().Secrets(pod.Namespace).Get(ctx, from.SecretKeyRef.Name, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			env[e.Name] = string(s.Data[from.SecretKeyRef.Key])
		}
	}
	return env, nil
}

func podField(pod *corev1.Pod, path string) (string, error) {
	switch path {
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.name":
		return pod.Name, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	case "status.hostIP":
		return pod.Status.HostIP, nil
	}
	return "", fmt.Errorf("fieldRef %s is not resolved here", path)
}

// containerResource is a resourceFieldRef: the container's request or limit, divided by the
// divisor (1 by default) and rounded up, as the kubelet exposes it.
// containerResource is a resourceFieldRef's value as the kubelet gives it (Kubernetes'
// ExtractResourceValueByContainerNameAndNodeAllocatable): a limit the container does not set is
// the node's allocatable amount, a request it does not set is 0 (Karpenter takes a CPU_REQUESTS
// of 0 as 1000m), the value divided by the divisor (default 1) and rounded up.
func containerResource(c *corev1.Container, ref *corev1.ResourceFieldSelector, allocatable corev1.ResourceList) (string, error) {
	kind, name, ok := strings.Cut(ref.Resource, ".")
	if !ok || kind != "requests" && kind != "limits" {
		return "", fmt.Errorf("resourceFieldRef %s", ref.Resource)
	}
	list := c.Resources.Requests
	if kind == "limits" {
		list = c.Resources.Limits
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok && kind == "limits" {
		q, ok = allocatable[corev1.ResourceName(name)]
	}
	if !ok {
		q = resource.Quantity{}
	}
	divisor := ref.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	v := (q.MilliValue() + divisor.MilliValue() - 1) / divisor.MilliValue()
	return strconv.FormatInt(v, 10), nil
}

// Env is the environment of the running (or last) controller process.
func (k *Karpenter) Env() map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]string{}
	for _, kv := range k.env {
		key, v, _ := strings.Cut(kv, "=")
		out[key] = v
	}
	return out
}

// LastStop is when the process was last stopped (zero: never).
func (k *Karpenter) LastStop() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.stops) == 0 {
		return time.Time{}
	}
	return k.stops[len(k.stops)-1]
}

// Running says whether a controller process runs now.
func (k *Karpenter) Running() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.proc != nil && !k.proc.Exited()
}

// History is when the process started and stopped, and why.
func (k *Karpenter) History() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.history...)
}

// LogTail is the last lines of the current (or last) process's log.
func (k *Karpenter) LogTail(lines int) string {
	logs, _ := filepath.Glob(filepath.Join(k.dir, "karpenter-*.log"))
	sort.Strings(logs)
	if len(logs) == 0 {
		return ""
	}
	b, err := os.ReadFile(logs[len(logs)-1])
	if err != nil {
		return err.Error()
	}
	all := strings.Split(string(b), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// rbacDenial is the API server's answer to a request RBAC does not allow, as client-go reports it
// in the controller's log (JSON: the quotes escaped).
var rbacDenial = regexp.MustCompile(`User \\?"([^"\\]+)\\?" cannot ([a-z]+) resource \\?"([^"\\]+)\\?"(?: in API group \\?"([^"\\]*)\\?")?`)

// Forbidden are the requests the API server refused the controller processes so far, one per
// user, verb and resource ("system:serviceaccount:kube-system:karpenter cannot create
// nodeclaims.karpenter.sh"), from their logs. It fails closed: a log it cannot read, or no log
// of a process that ran, is an error, never "nothing refused".
func (k *Karpenter) Forbidden() ([]string, error) {
	logs, err := filepath.Glob(filepath.Join(k.dir, "karpenter-*.log"))
	k.mu.Lock()
	runs := k.runs
	k.mu.Unlock()
	switch {
	case err != nil:
		return nil, err
	case len(logs) < runs:
		return nil, fmt.Errorf("%d controller processes ran, and %d logs of them are in %s", runs, len(logs), k.dir)
	}
	seen := map[string]bool{}
	for _, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading the controller's log: %w", err)
		}
		for _, m := range rbacDenial.FindAllStringSubmatch(string(b), -1) {
			resource := m[3]
			if m[4] != "" {
				resource += "." + m[4]
			}
			seen[m[1]+" cannot "+m[2]+" "+resource] = true
		}
	}
	return sortedKeys(seen), nil
}

// Close stops the watch and the process.
func (k *Karpenter) Close() {
	if k == nil {
		return
	}
	k.cancel()
	<-k.done
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// freePortsN picks n distinct free loopback ports (all held open until all are picked).
func freePortsN(n int) ([]int, error) {
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}
