package lab

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/internal/cfntemplate"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// GettingStarted is a Karpenter install made the way Karpenter's getting-started guide (v1.x,
// "Getting Started with Karpenter") makes it on a cluster that exists, straight against moto and
// the API server, outside any Pulumi stack: what a user who adopts it (the component's `adopt`
// input) has running.
//
//   - The official CloudFormation template's resources, made from upstream's v1.14 file byte for
//     byte (internal/cfntemplate), not from the component's catalog: the node role
//     KarpenterNodeRole-<cluster> with its four AWS policies, the six controller policies
//     KarpenterController*Policy-<cluster>, the queue <cluster> (retention 300 s, SSE) with its
//     policy, and the five rules, each targeting the queue as KarpenterInterruptionQueueTarget.
//     CloudFormation names the rules <stack>-<LogicalId>-<13 random characters> (the logical id
//     cut so the name fits EventBridge's 64), the guide's stack being Karpenter-<cluster>.
//   - What the guide's eksctl cluster config adds: the controller role <cluster>-karpenter for EKS
//     Pod Identity (trusting pods.eks.amazonaws.com, as eksctl creates it) with the six policies,
//     the eks-pod-identity-agent add-on and the association of kube-system/karpenter with the role
//     (EKS's API for both is the aws stand-in's record: moto lacks it), and the node role's
//     mapping in kube-system/aws-auth (iamIdentityMappings).
//   - The discovery tag karpenter.sh/discovery: <cluster> on the VPC's subnets and the nodes'
//     security group, as the guide tags them.
//   - `helm install karpenter` of the release's chart into kube-system with the guide's values,
//     through Helm's Go SDK (the CRDs from the chart's crds/ directory: no release owns them).
//   - The guide's NodePool and EC2NodeClass `default`, applied. The class's image is
//     al2023@latest (the guide pins a version; the world's SSM parameters serve @latest only).
type GettingStarted struct {
	Cluster, Version string
	// RuleNames are the rules' names by the component's key (adopt.interruptionRuleNames).
	RuleNames map[string]string
	// PodIdentityAssociationID is the controller's association (adopt.podIdentityAssociationId).
	PodIdentityAssociationID string
	NodeRoleArn              string
	// Values are the values the install set on the release that the component does not set
	// itself: what an adopting program must carry.
	Values map[string]any

	controllerPolicyArns []string // the template's, which eksctl attaches to the controller role
}

// gettingStartedStack is the CloudFormation stack name the guide deploys the template as.
func gettingStartedStack(cluster string) string { return "Karpenter-" + cluster }

// InstallGettingStarted installs Karpenter version on cluster as GettingStarted says.
func (w *World) InstallGettingStarted(ctx context.Context, cluster, version string) (*GettingStarted, error) {
	release, err := catalog.LookupRelease(version, false)
	if err != nil {
		return nil, err
	}
	g := &GettingStarted{Cluster: cluster, Version: version, RuleNames: map[string]string{}}
	names := catalog.GettingStartedNames(release, cluster)
	scope := catalog.AwsScope{Partition: "aws", DNSSuffix: "amazonaws.com", Region: Region, Account: MotoAccount}
	g.NodeRoleArn = scope.RoleArn(names.NodeRole)
	for _, step := range []func() error{
		func() error { return w.deployTemplate(ctx, g, release, names, scope) },
		func() error { return w.eksctlIdentity(ctx, g, names, scope) },
		func() error { return w.tagForDiscovery(ctx, cluster) },
		func() error { return w.helmInstallGettingStarted(ctx, g, names) },
		func() error { return w.applyGettingStartedPool(ctx, g, names) },
	} {
		if err := step(); err != nil {
			return nil, fmt.Errorf("getting-started install of Karpenter %s on %s: %w", version, cluster, err)
		}
	}
	return g, nil
}

// deployTemplate creates the official getting-started template's resources in moto, as the
// guide's `aws cloudformation deploy` would (moto's CloudFormation is not used: the world makes
// each resource with the call CloudFormation makes for it). The template is upstream's v1.14 file,
// byte for byte (internal/cfntemplate), which the v1.12-v1.14 guides deploy; other releases' are
// not here.
func (w *World) deployTemplate(ctx context.Context, g *GettingStarted, release catalog.Release, names catalog.GettingStarted, scope catalog.AwsScope) error {
	if release.Version.Major != 1 || release.Version.Minor < 12 || release.Version.Minor > 14 {
		return fmt.Errorf("the getting-started world deploys the v1.14 template (v1.12-v1.14 guides) only, not %s's", release.Version)
	}
	queueArn := scope.QueueArn(names.Queue)
	tmpl, err := cfntemplate.Parse(cfntemplate.GettingStartedV114, cfntemplate.Stack{
		Partition: "aws", Region: Region, AccountID: MotoAccount, URLSuffix: "amazonaws.com",
		Parameters: map[string]string{"ClusterName": g.Cluster},
		Attributes: map[string]string{"KarpenterNodeRole.Arn": g.NodeRoleArn, "KarpenterInterruptionQueue.Arn": queueArn,
			// The queue policy names its queue by URL; the world sets it on the queue it made.
			"KarpenterInterruptionQueue": "the queue's URL"},
	})
	if err != nil {
		return err
	}
	cl, queues, events := iam.NewFromConfig(w.AWS), sqs.NewFromConfig(w.AWS), eventbridge.NewFromConfig(w.AWS)
	rules := map[string]string{} // logical id -> the component's key
	for _, rule := range catalog.RulesOf(release) {
		rules[rule.LogicalID] = rule.Key
	}
	var queueURL *string
	for _, id := range tmpl.Order {
		res := tmpl.Resources[id]
		props := res.Properties
		str := func(k string) *string { return aws.String(fmt.Sprint(props[k])) }
		switch res.Type {
		case "AWS::IAM::Role":
			if _, err := cl.CreateRole(ctx, &iam.CreateRoleInput{RoleName: str("RoleName"), Path: str("Path"),
				AssumeRolePolicyDocument: aws.String(jsonOf(props["AssumeRolePolicyDocument"]))}); err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			for _, arn := range props["ManagedPolicyArns"].([]any) {
				if _, err := cl.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: str("RoleName"), PolicyArn: aws.String(arn.(string))}); err != nil {
					return fmt.Errorf("%s %s: %w", id, arn, err)
				}
			}
		case "AWS::IAM::ManagedPolicy":
			out, err := cl.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: str("ManagedPolicyName"), Path: str("Path"),
				PolicyDocument: aws.String(props["PolicyDocument"].(string))})
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			g.controllerPolicyArns = append(g.controllerPolicyArns, aws.ToString(out.Policy.Arn))
		case "AWS::SQS::Queue":
			q, err := queues.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: str("QueueName"), Attributes: map[string]string{
				"MessageRetentionPeriod": fmt.Sprint(props["MessageRetentionPeriod"]), "SqsManagedSseEnabled": fmt.Sprint(props["SqsManagedSseEnabled"])}})
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			queueURL = q.QueueUrl
		case "AWS::SQS::QueuePolicy":
			if _, err := queues.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: queueURL,
				Attributes: map[string]string{"Policy": jsonOf(props["PolicyDocument"])}}); err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
		case "AWS::Events::Rule":
			name := cloudFormationName(gettingStartedStack(g.Cluster), id, 64)
			if _, err := events.PutRule(ctx, &eventbridge.PutRuleInput{Name: aws.String(name), EventPattern: aws.String(jsonOf(props["EventPattern"])),
				State: ebtypes.RuleStateEnabled}); err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			var targets []ebtypes.Target
			for _, t := range props["Targets"].([]any) {
				t := t.(map[string]any)
				targets = append(targets, ebtypes.Target{Id: aws.String(t["Id"].(string)), Arn: aws.String(t["Arn"].(string))})
			}
			if _, err := events.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: aws.String(name), Targets: targets}); err != nil {
				return fmt.Errorf("%s targets: %w", id, err)
			}
			key, ok := rules[id]
			if !ok {
				return fmt.Errorf("%s: no interruption rule of Karpenter %s in the catalog", id, release.Version)
			}
			g.RuleNames[key] = name
		default:
			return fmt.Errorf("%s: the world does not deploy a %s", id, res.Type)
		}
	}
	return nil
}

// jsonOf is a template value as the JSON CloudFormation sends for it.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// cloudFormationName is the physical name CloudFormation gives a resource without one:
// <stack>-<logical id>-<13 random upper-case letters and digits>, the logical id cut so the
// whole fits limit.
func cloudFormationName(stack, logicalID string, limit int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 13)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = chars[int(b[i])%len(chars)]
	}
	if room := limit - len(stack) - 2 - len(b); len(logicalID) > room {
		logicalID = logicalID[:max(room, 0)]
	}
	return stack + "-" + logicalID + "-" + string(b)
}

// eksctlIdentity: the controller role for Pod Identity with the template's policies, the
// agent add-on and the association, and the node role's aws-auth mapping.
func (w *World) eksctlIdentity(ctx context.Context, g *GettingStarted, names catalog.GettingStarted, scope catalog.AwsScope) error {
	cl := iam.NewFromConfig(w.AWS)
	if _, err := cl.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(names.ControllerRole),
		AssumeRolePolicyDocument: aws.String(trustOf("Service", PodIdentityAudience, "sts:AssumeRole", "sts:TagSession"))}); err != nil {
		return fmt.Errorf("controller role: %w", err)
	}
	for _, arn := range g.controllerPolicyArns {
		if _, err := cl.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(names.ControllerRole),
			PolicyArn: aws.String(arn)}); err != nil {
			return fmt.Errorf("controller role %s: %w", arn, err)
		}
	}
	g.PodIdentityAssociationID = "a-" + strings.ToLower(randomHex(17)) // EKS: a- and 17 lower-case letters and digits
	err := w.withStandInEKS(func(tables map[string]map[string]map[string]any) {
		tables["addons"][g.Cluster+":"+podIdentityAddon] = podIdentityAgentRecord(g.Cluster)
		tables["podIdentityAssociations"][g.PodIdentityAssociationID] = map[string]any{
			"associationArn": fmt.Sprintf("arn:aws:eks:%s:%s:podidentityassociation/%s/%s", Region, MotoAccount, g.Cluster, g.PodIdentityAssociationID),
			"associationId":  g.PodIdentityAssociationID, "clusterName": g.Cluster, "namespace": "kube-system",
			"roleArn": scope.RoleArn(names.ControllerRole), "serviceAccount": "karpenter",
			"tags": map[string]any{}, "tagsAll": map[string]any{},
		}
	})
	if err != nil {
		return fmt.Errorf("pod identity (the aws stand-in's EKS record): %w", err)
	}
	mapRoles, _ := yaml.Marshal([]map[string]any{{"rolearn": g.NodeRoleArn, "username": "system:node:{{EC2PrivateDNSName}}",
		"groups": []string{"system:bootstrappers", "system:nodes"}}})
	cs, err := kubernetes.NewForConfig(w.ControlPlane.Config)
	if err != nil {
		return err
	}
	_, err = cs.CoreV1().ConfigMaps("kube-system").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-auth", Namespace: "kube-system"},
		Data:       map[string]string{"mapRoles": string(mapRoles)},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("aws-auth: %w", err)
	}
	return nil
}

// podIdentityAgentRecord is the eks-pod-identity-agent add-on of cluster as the aws stand-in's EKS
// record holds an add-on (what EKS's DescribeAddon answers).
func podIdentityAgentRecord(cluster string) map[string]any {
	return map[string]any{
		"addonName": podIdentityAddon, "addonVersion": "v1.3.10-eksbuild.2", "clusterName": cluster,
		"arn":       fmt.Sprintf("arn:aws:eks:%s:%s:addon/%s/%s/%s", Region, MotoAccount, cluster, podIdentityAddon, randomHex(8)),
		"createdAt": "2026-11-01T00:00:00Z", "modifiedAt": "2026-11-01T00:00:00Z", "configurationValues": "",
		"tags": map[string]any{}, "tagsAll": map[string]any{},
	}
}

// withStandInEKS changes the aws stand-in's EKS record (tables by name: accessEntries, addons,
// podIdentityAssociations, ...) under the lock the stand-in takes, keeping what it holds besides.
func (w *World) withStandInEKS(change func(tables map[string]map[string]map[string]any)) error {
	path := standInEKSRecord(w.StateDir)
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck
	record := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(data, &record); err != nil {
			return err
		}
	}
	tables := map[string]map[string]map[string]any{}
	for _, name := range []string{"accessEntries", "accessPolicyAssociations", "addons", "podIdentityAssociations"} {
		table := map[string]map[string]any{}
		if raw, ok := record[name]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &table); err != nil {
				return err
			}
		}
		tables[name] = table
	}
	change(tables)
	for name, t := range tables {
		if record[name], err = json.Marshal(t); err != nil {
			return err
		}
	}
	out, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", out, 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// tagForDiscovery tags the VPC's subnets and the nodes' security group for the cluster.
func (w *World) tagForDiscovery(ctx context.Context, cluster string) error {
	_, err := ec2.NewFromConfig(w.AWS).CreateTags(ctx, &ec2.CreateTagsInput{
		Resources: append(append([]string{}, w.VPC.SubnetIDs...), w.VPC.SecurityGroupID),
		Tags:      []ec2types.Tag{{Key: aws.String("karpenter.sh/discovery"), Value: aws.String(cluster)}},
	})
	if err != nil {
		return fmt.Errorf("discovery tags: %w", err)
	}
	return nil
}

// helmInstallGettingStarted is the guide's
//
//	helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --version $V \
//	  --namespace kube-system --create-namespace --set settings.clusterName=$C \
//	  --set settings.interruptionQueue=$C --set controller.resources.{requests,limits}.{cpu=1,memory=1Gi} --wait
//
// with --set dnsPolicy=Default, which the guide adds when Karpenter provisions the capacity CoreDNS
// runs on (the chart's default is ClusterFirst; the component does not set it), so the install
// has a value set outside what an adopting program writes (the chart from the world's mirror;
// Helm's SDK, as the CLI; --wait is the test's to do). The guide's --set
// settings.enableZonalShift=true (from 1.12) is left out: the controller then asks ARC Zonal Shift
// for the cluster's registration at start, which moto does not serve, and stops.
func (w *World) helmInstallGettingStarted(ctx context.Context, g *GettingStarted, names catalog.GettingStarted) error {
	resources := map[string]any{"cpu": "1", "memory": "1Gi"}
	g.Values = map[string]any{"dnsPolicy": "Default"}
	_, err := w.Cluster.InstallRelease(ctx, harness.Resource{Type: harness.ReleaseType, Name: "karpenter", Inputs: map[string]any{
		"name": "karpenter", "namespace": "kube-system", "createNamespace": true,
		"chart": w.ChartRepository() + "/karpenter", "version": g.Version,
		"values": map[string]any{
			"settings":   map[string]any{"clusterName": g.Cluster, "interruptionQueue": names.Queue},
			"controller": map[string]any{"resources": map[string]any{"requests": resources, "limits": resources}},
			"dnsPolicy":  "Default",
		},
	}})
	return err
}

// gettingStartedPool is the guide's NodePool and EC2NodeClass (%[1]s the cluster, %[2]s the node
// role).
const gettingStartedPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
        - key: kubernetes.io/os
          operator: In
          values: ["linux"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
        - key: karpenter.k8s.aws/instance-generation
          operator: Gt
          values: ["2"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      expireAfter: 720h
  limits:
    cpu: 1000
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: "%[2]s"
  amiSelectorTerms:
    - alias: "al2023@latest"
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: "%[1]s"
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: "%[1]s"
`

// applyGettingStartedPool is the guide's `kubectl apply` of its pool and class.
func (w *World) applyGettingStartedPool(ctx context.Context, g *GettingStarted, names catalog.GettingStarted) error {
	return w.kubectlApply(ctx, fmt.Sprintf(gettingStartedPool, g.Cluster, names.NodeRole))
}

// kubectlApply creates each object of a multi-document manifest as `kubectl apply` does the
// first time: kubectl's client-side apply creates it with the configuration it applied in the
// last-applied-configuration annotation, under its field manager (kubectl-client-side-apply).
func (w *World) kubectlApply(ctx context.Context, manifest string) error {
	for _, doc := range strings.Split(manifest, "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return err
		}
		applied, err := json.Marshal(obj.Object)
		if err != nil {
			return err
		}
		obj.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(applied) + "\n"})
		if _, err := w.Cluster.CreateAs(ctx, obj, "kubectl-client-side-apply"); err != nil {
			return fmt.Errorf("kubectl apply %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// trustOf is a trust policy letting the principal (kind Service, Federated, ...) take the actions.
func trustOf(kind, principal string, actions ...string) string {
	doc, _ := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
		"Effect": "Allow", "Principal": map[string]any{kind: principal}, "Action": actions}}})
	return string(doc)
}
