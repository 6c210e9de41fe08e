package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// nodeAccess decides, as EKS's authenticator does for a kubelet's credentials, whether an
// instance's role may join its cluster (EKS User Guide, "Grant IAM users and roles access to
// Kubernetes APIs"; "Change authentication mode"): in API mode through an access entry of type
// EC2_LINUX or EC2_WINDOWS for the role; in CONFIG_MAP mode through a kube-system/aws-auth mapRoles
// entry for the role in the group system:nodes; in API_AND_CONFIG_MAP mode through either (the
// entry first). The cluster is the instance's `eks:eks-cluster-name` tag (Karpenter's); its mode
// and access entries are the aws stand-in's EKS record, its aws-auth the world's API server. A
// stand-in for EKS's side of a node's join: the registrar asks it before it registers a Node.
type nodeAccess struct {
	iam    *iam.Client
	kube   *kubernetes.Clientset
	record string
}

// refuses says why the cluster refuses the instance's kubelet ("" when it lets it in).
func (a *nodeAccess) refuses(ctx context.Context, inst ec2types.Instance) (string, error) {
	var cluster string
	for _, t := range inst.Tags {
		if aws.ToString(t.Key) == "eks:eks-cluster-name" {
			cluster = aws.ToString(t.Value)
		}
	}
	if inst.IamInstanceProfile == nil || cluster == "" {
		return "no instance profile or no eks:eks-cluster-name tag: no kubelet credentials for a cluster", nil
	}
	arn := aws.ToString(inst.IamInstanceProfile.Arn)
	profile, err := a.iam.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(arn[strings.LastIndex(arn, "/")+1:])})
	if err != nil {
		return "", fmt.Errorf("GetInstanceProfile %s: %w", arn, err)
	}
	if len(profile.InstanceProfile.Roles) == 0 {
		return fmt.Sprintf("instance profile %s has no role", arn), nil
	}
	role := aws.ToString(profile.InstanceProfile.Roles[0].Arn)
	rec, err := readStandInEKS(a.record)
	if err != nil {
		return "", err
	}
	mapRoles := ""
	cm, err := a.kube.CoreV1().ConfigMaps("kube-system").Get(ctx, "aws-auth", metav1.GetOptions{})
	switch {
	case err == nil:
		mapRoles = cm.Data["mapRoles"]
	case !apierrors.IsNotFound(err):
		return "", err
	}
	return nodeAccessRefusal(cluster, rec.Clusters[cluster].AuthenticationMode, role, rec.hasNodeEntry(cluster, role), mapRoles), nil
}

// nodeAccessRefusal is EKS's decision for a node's role: "" when the cluster's mode lets it in
// through an EC2 access entry (hasEntry) or an aws-auth mapping in mapRoles, else why not.
func nodeAccessRefusal(cluster, mode, role string, hasEntry bool, mapRoles string) string {
	if mode == "" {
		mode = "CONFIG_MAP" // a cluster without an access configuration
	}
	if mode != "CONFIG_MAP" && hasEntry {
		return ""
	}
	if mode != "API" && mappedAsNode(mapRoles, role) {
		return ""
	}
	return fmt.Sprintf("its role %s has no node access to cluster %s (%s mode: %s)", role, cluster, mode, map[string]string{
		"API":                "no EC2_LINUX or EC2_WINDOWS access entry",
		"CONFIG_MAP":         "not in kube-system/aws-auth's mapRoles with the group system:nodes",
		"API_AND_CONFIG_MAP": "neither an EC2 access entry nor an aws-auth mapping",
	}[mode])
}

// hasNodeEntry: an EC2 access entry for the role on the cluster.
func (r StandInEKS) hasNodeEntry(cluster, role string) bool {
	for _, e := range r.AccessEntries {
		if e["clusterName"] == cluster && e["principalArn"] == role && (e["type"] == "EC2_LINUX" || e["type"] == "EC2_WINDOWS") {
			return true
		}
	}
	return false
}

// mappedAsNode: the role in an aws-auth mapRoles document with the group system:nodes. EKS
// ignores a document it cannot read: nobody is mapped.
func mappedAsNode(mapRoles, role string) bool {
	var entries []struct {
		RoleARN string   `json:"rolearn"`
		Groups  []string `json:"groups"`
	}
	if err := yaml.Unmarshal([]byte(mapRoles), &entries); err != nil {
		return false
	}
	for _, e := range entries {
		if e.RoleARN == role && slices.Contains(e.Groups, "system:nodes") {
			return true
		}
	}
	return false
}
