//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	nodeadm "github.com/awslabs/amazon-eks-ami/nodeadm/api/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// What a node would boot with: the user data of the launch template Karpenter launched its
// instance from. On AL2023 that is a MIME multi-part archive (Content-Type multipart/mixed)
// whose application/node.eks.aws part is nodeadm's NodeConfig (node.eks.aws/v1alpha1, decoded with
// nodeadm's own API types, github.com/awslabs/amazon-eks-ami/nodeadm/api/v1alpha1) and whose other
// parts are the user's own user data (EKS User Guide, "Amazon EC2 user data" for AL2023; nodeadm
// reads the NodeConfig parts and runs the others).

// nodeBoot is what the node must boot with.
type nodeBoot struct {
	Cluster, Endpoint string
	CA                []byte // the cluster's CA bundle (PEM)
	ServiceCIDR       string // the cluster's service CIDR (DescribeCluster's kubernetesNetworkConfig)
	MaxPods           int    // the class's kubelet maxPods, else the instance type's pods Karpenter resolved
	UserScript        string // a line of the user's own userData, which must reach the node as its own part ("": none)
}

// expectedNodeBoot is what nodes of the cluster must boot with: the cluster as EKS describes it
// (moto's record: its service CIDR), the endpoint and CA of the world's API server (which stands
// for the cluster's control plane), and the node class's settings.
func expectedNodeBoot(t *testing.T, w *karpenterWorld, cluster string, maxPods int, userScript string) nodeBoot {
	t.Helper()
	ca, err := os.ReadFile(filepath.Join(w.ControlPlane.Dir, "certs", "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := eks.NewFromConfig(w.AWS).DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String(cluster)})
	if err != nil {
		t.Fatal(err)
	}
	var cidr string
	if n := d.Cluster.KubernetesNetworkConfig; n != nil {
		cidr = aws.ToString(n.ServiceIpv4Cidr)
	}
	if cidr == "" {
		t.Fatalf("cluster %s: DescribeCluster names no service CIDR: %+v", cluster, d.Cluster.KubernetesNetworkConfig)
	}
	return nodeBoot{Cluster: cluster, Endpoint: w.ControlPlane.URL, CA: ca, ServiceCIDR: cidr, MaxPods: maxPods, UserScript: userScript}
}

// checkNodeBoot: the instance's launch template's user data is an AL2023 MIME archive whose
// NodeConfig names the cluster, its endpoint, CA and service CIDR, carries the class's maxPods,
// and whose other part is the user's script.
func checkNodeBoot(t *testing.T, w *karpenterWorld, i lab.Instance, want nodeBoot) {
	t.Helper()
	for id, raw := range launchUserData(t, w, i) {
		checkNodeadmUserData(t, i.ID+" ("+id+")", raw, want)
	}
}

func checkNodeadmUserData(t *testing.T, node string, raw []byte, want nodeBoot) {
	t.Helper()
	configs, others, err := nodeadmParts(raw)
	if err != nil {
		t.Fatalf("%s: user data is not an AL2023 MIME archive: %v\n%s", node, err, raw)
	}
	if len(configs) != 1 {
		t.Fatalf("%s: %d NodeConfig parts, want 1:\n%s", node, len(configs), raw)
	}
	c := configs[0].Spec
	if c.Cluster.Name != want.Cluster || c.Cluster.APIServerEndpoint != want.Endpoint || !bytes.Equal(c.Cluster.CertificateAuthority, want.CA) || c.Cluster.CIDR != want.ServiceCIDR {
		t.Errorf("%s: NodeConfig cluster name %q, endpoint %q, CA of %d bytes, CIDR %q; want %q, %q, the API server's CA (%d bytes), %q",
			node, c.Cluster.Name, c.Cluster.APIServerEndpoint, len(c.Cluster.CertificateAuthority), c.Cluster.CIDR,
			want.Cluster, want.Endpoint, len(want.CA), want.ServiceCIDR)
	}
	var maxPods int
	if v, ok := c.Kubelet.Config["maxPods"]; ok {
		_ = json.Unmarshal(v.Raw, &maxPods)
	}
	if maxPods != want.MaxPods {
		t.Errorf("%s: kubelet maxPods %d, want %d", node, maxPods, want.MaxPods)
	}
	var user bool
	for _, p := range others {
		user = user || strings.Contains(p, want.UserScript)
	}
	if want.UserScript != "" && !user {
		t.Errorf("%s: the user's userData (%q) is not a part of the node's user data: parts %q", node, want.UserScript, others)
	}
}

// checkBottlerocketBoot: the instance's launch template's user data is Bottlerocket's TOML
// settings (Bottlerocket's settings reference, settings.kubernetes.*; written by Karpenter's
// bootstrap/bottlerocket.go) naming the cluster, its endpoint and CA, with the class's max-pods,
// the pool's node label, and the user's own settings merged in (their
// settings.host-containers.admin.enabled = true). The service CIDR is no Bottlerocket setting.
func checkBottlerocketBoot(t *testing.T, w *karpenterWorld, i lab.Instance, want nodeBoot) {
	t.Helper()
	for id, raw := range launchUserData(t, w, i) {
		checkBottlerocketUserData(t, i.ID+" ("+id+")", raw, want)
	}
}

func checkBottlerocketUserData(t *testing.T, node string, raw []byte, want nodeBoot) {
	t.Helper()
	var doc struct {
		Settings struct {
			Kubernetes struct {
				ClusterName        string            `toml:"cluster-name"`
				APIServer          string            `toml:"api-server"`
				ClusterCertificate string            `toml:"cluster-certificate"`
				MaxPods            int               `toml:"max-pods"`
				NodeLabels         map[string]string `toml:"node-labels"`
			} `toml:"kubernetes"`
			HostContainers map[string]struct {
				Enabled bool `toml:"enabled"`
			} `toml:"host-containers"`
		} `toml:"settings"`
	}
	if _, err := toml.Decode(string(raw), &doc); err != nil {
		t.Fatalf("%s: user data is not Bottlerocket's TOML: %v\n%s", node, err, raw)
	}
	k := doc.Settings.Kubernetes
	ca, err := base64.StdEncoding.DecodeString(k.ClusterCertificate)
	if err != nil || !bytes.Equal(ca, want.CA) || k.ClusterName != want.Cluster || k.APIServer != want.Endpoint {
		t.Errorf("%s: settings.kubernetes cluster-name %q, api-server %q, cluster-certificate of %d bytes (%v); want %q, %q, the API server's CA (%d bytes)",
			node, k.ClusterName, k.APIServer, len(ca), err, want.Cluster, want.Endpoint, len(want.CA))
	}
	if k.MaxPods != want.MaxPods || k.NodeLabels["karpenter.sh/nodepool"] != "default" {
		t.Errorf("%s: max-pods %d, node-labels %v; want %d and karpenter.sh/nodepool=default", node, k.MaxPods, k.NodeLabels, want.MaxPods)
	}
	if !doc.Settings.HostContainers["admin"].Enabled {
		t.Errorf("%s: the user's settings.host-containers.admin.enabled = true did not reach the node:\n%s", node, raw)
	}
}

// launchUserData is the decoded user data of each launch template the instance could have been
// launched from (LaunchTemplatesOf: a fleet's configs for its type), by template id.
func launchUserData(t *testing.T, w *karpenterWorld, i lab.Instance) map[string][]byte {
	t.Helper()
	lts := lab.LaunchTemplatesOf(w.recorder.Calls(), i.ID, i.Type)
	if len(lts) == 0 {
		t.Fatalf("instance %s (%s): no launch of it with a launch template was recorded", i.ID, i.Type)
	}
	out := map[string][]byte{}
	for _, lt := range lts {
		v, err := ec2.NewFromConfig(w.AWS).DescribeLaunchTemplateVersions(context.Background(), &ec2.DescribeLaunchTemplateVersionsInput{
			LaunchTemplateId: aws.String(lt.ID), Versions: []string{"$Default"}})
		if err != nil || len(v.LaunchTemplateVersions) != 1 {
			t.Fatalf("instance %s: launch template %s: %v", i.ID, lt.ID, err)
		}
		raw, err := base64.StdEncoding.DecodeString(aws.ToString(v.LaunchTemplateVersions[0].LaunchTemplateData.UserData))
		if err != nil {
			t.Fatalf("instance %s: launch template %s: user data: %v", i.ID, lt.ID, err)
		}
		out[lt.ID] = raw
	}
	return out
}

// nodeadmParts splits an AL2023 MIME archive into its NodeConfigs and its other parts.
func nodeadmParts(raw []byte) ([]nodeadm.NodeConfig, []string, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	media, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return nil, nil, err
	}
	if media != "multipart/mixed" {
		return nil, nil, fmt.Errorf("Content-Type %s, want multipart/mixed", media)
	}
	var configs []nodeadm.NodeConfig
	var others []string
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return configs, others, nil
		}
		if err != nil {
			return nil, nil, err
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return nil, nil, err
		}
		if typ, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); typ != "application/node.eks.aws" {
			others = append(others, string(body))
			continue
		}
		var c nodeadm.NodeConfig
		if err := yaml.UnmarshalStrict(body, &c); err != nil {
			return nil, nil, fmt.Errorf("NodeConfig part: %w", err)
		}
		if c.APIVersion != "node.eks.aws/v1alpha1" || c.Kind != "NodeConfig" {
			return nil, nil, fmt.Errorf("node.eks.aws part of apiVersion %q kind %q", c.APIVersion, c.Kind)
		}
		configs = append(configs, c)
	}
}
