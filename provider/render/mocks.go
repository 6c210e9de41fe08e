package render

import (
	"fmt"
	"strings"
	"sync"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// The fixed identity render runs under, so output never depends on credentials.
const (
	account   = "123456789012"
	region    = "us-west-2"
	partition = "aws"
	dnsSuffix = "amazonaws.com"
)

// Mocks answer invokes, registrations and reads the way AWS and the kubernetes provider would
// name and identify things. The zero value is render's; tests set the fields.
type Mocks struct {
	// MissingAddons are EKS add-ons the mock cluster does not have.
	MissingAddons map[string]bool
	// RegionShape is how getRegion answers: "v6" (name only, pulumi-aws 6.x), "v7" (region,
	// and the deprecated name; the default) "v7-no-name" (a later major without name) or "empty" (neither: must fail).
	RegionShape string
	// Cluster answers the cluster checks' reads (cluster_mock.go).
	Cluster *Cluster
	// Registered is filled by a render: what the component registered, by "type::name".
	Registered map[string]*Registration
	// invoked are the invokes the monitor answered, as sent.
	invokeMu sync.Mutex
	invoked  []invocation
}

func (m *Mocks) call(token string, args presource.PropertyMap) (presource.PropertyMap, error) {
	if err := m.Cluster.denied(token); err != nil {
		return nil, err
	}
	if result, ok, err := m.Cluster.call(token, args); ok {
		return result, err
	}
	arg := func(k string) string {
		if v := args[presource.PropertyKey(k)]; v.IsString() {
			return v.StringValue()
		}
		return "" // not given
	}
	switch token {
	case "aws:index/getPartition:getPartition":
		return mockMap(map[string]any{"id": partition, "partition": partition, "dnsSuffix": dnsSuffix, "reverseDnsPrefix": "com.amazonaws"}), nil
	case "aws:index/getRegion:getRegion":
		answer := map[string]any{"id": region, "description": "US West (Oregon)", "endpoint": "ec2." + region + ".amazonaws.com"}
		switch m.RegionShape {
		case "v6":
			answer["name"] = region
		case "v7-no-name":
			answer["region"] = region
		case "empty":
		default:
			answer["region"], answer["name"] = region, region
		}
		return mockMap(answer), nil
	case "aws:index/getCallerIdentity:getCallerIdentity":
		return mockMap(map[string]any{"id": account, "accountId": account, "arn": "arn:aws:iam::" + account + ":user/render", "userId": "AIDARENDER"}), nil
	case "aws:eks/getAddon:getAddon":
		addon := arg("addonName")
		if m.MissingAddons[addon] || !m.Cluster.has(addon) {
			return nil, fmt.Errorf("reading EKS Add-On (%s:%s): couldn't find resource", arg("clusterName"), addon)
		}
		return mockMap(map[string]any{"id": arg("clusterName") + ":" + addon, "addonName": addon, "addonVersion": "v1.3.8-eksbuild.2"}), nil
	case "aws:iam/getInstanceProfile:getInstanceProfile":
		// Instance profiles made by hand usually hold a role of the same name.
		name := arg("name")
		if !m.Cluster.has(name) {
			return nil, fmt.Errorf("reading IAM Instance Profile (%s): couldn't find resource", name)
		}
		return mockMap(map[string]any{"id": name, "name": name, "path": "/",
			"arn":     fmt.Sprintf("arn:%s:iam::%s:instance-profile/%s", partition, account, name),
			"roleArn": fmt.Sprintf("arn:%s:iam::%s:role/%s", partition, account, name), "roleName": name}), nil
	// An adoption's reads of the running install (plan.ReadAdoption), with no cluster in the args:
	// everything it names exists.
	case "aws:iam/getRole:getRole":
		name := arg("name")
		return mockMap(map[string]any{"id": name, "name": name, "arn": fmt.Sprintf("arn:%s:iam::%s:role/%s", partition, account, name)}), nil
	case "aws:iam/getPolicy:getPolicy":
		// By ARN (GetPolicy), or by name (pulumi-aws lists the policies: ListPolicies): the
		// component reads the ARN under path "/" first, then the name.
		name := arg("name")
		if a := arg("arn"); a != "" {
			name = a[strings.LastIndex(a, "/")+1:]
			if !m.Cluster.has(name) || m.Cluster.iamArn("policy", name) != a {
				return nil, fmt.Errorf("reading IAM Policy (%s): couldn't find resource", a)
			}
		} else if !m.Cluster.has(name) {
			return nil, fmt.Errorf("no matching IAM Policy found")
		}
		arn := m.Cluster.iamArn("policy", name)
		return mockMap(map[string]any{"id": arn, "arn": arn, "name": name}), nil
	case "aws:sqs/getQueue:getQueue":
		name := arg("name")
		if !m.Cluster.has(name) {
			return nil, fmt.Errorf("reading SQS Queue (%s) URL: operation error SQS: GetQueueUrl, api error AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.", name)
		}
		url := fmt.Sprintf("https://sqs.%s.%s/%s/%s", region, dnsSuffix, account, name)
		return mockMap(map[string]any{"id": url, "name": name, "url": url, "arn": fmt.Sprintf("arn:%s:sqs:%s:%s:%s", partition, region, account, name)}), nil
	case "aws:eks/getAccessEntry:getAccessEntry":
		id := arg("clusterName") + ":" + arg("principalArn")
		entry, ok := m.Cluster.accessEntry(arg("principalArn"))
		if !ok {
			return nil, fmt.Errorf("reading EKS Access Entry (%s): couldn't find resource", id)
		}
		return mockMap(map[string]any{"id": id, "clusterName": arg("clusterName"), "principalArn": arg("principalArn"), "type": entry.Type, "tags": entry.Tags}), nil
	}
	return nil, fmt.Errorf("render: no mock for invoke %s", token)
}

// read answers reads of existing objects, as the cluster the args describe has them (Cluster;
// its defaults without one): kube-system/aws-auth, which on an EKS cluster in CONFIG_MAP mode
// already maps the managed node group's role (EKS updated it: it keeps what others add); and, for
// an adoption, the running install's CRD and its `karpenter` release.
func (m *Mocks) read(reg *Registration) (presource.PropertyMap, error) {
	c := m.Cluster
	if c == nil {
		c = &Cluster{}
	}
	switch {
	case reg.Type == "kubernetes:core/v1:ConfigMap" && reg.ReadID == "kube-system/aws-auth":
		managers := c.AwsAuthManagers
		if len(managers) == 0 {
			managers = []FieldManager{{Manager: "eks", Operation: "Update"}}
		}
		var managedFields []any
		for _, f := range managers {
			managedFields = append(managedFields, map[string]any{"manager": f.Manager, "operation": f.Operation, "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:data": map[string]any{".": map[string]any{}, "f:mapRoles": map[string]any{}}}})
		}
		return mockMap(map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "aws-auth", "namespace": "kube-system", "managedFields": managedFields},
			"data": map[string]any{"mapRoles": "- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: arn:aws:iam::" + account +
				":role/managed-node-group\n  username: system:node:{{EC2PrivateDNSName}}\n"},
		}), nil
	case reg.Type == "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition":
		metadata := map[string]any{"name": reg.ReadID}
		if namespace, name, ok := strings.Cut(c.CrdRelease, "/"); ok {
			metadata["annotations"] = map[string]any{"meta.helm.sh/release-name": name, "meta.helm.sh/release-namespace": namespace}
		}
		return mockMap(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": metadata}), nil
	case strings.HasPrefix(reg.Type, "kubernetes:karpenter."):
		kind := reg.Type[strings.LastIndex(reg.Type, ":")+1:]
		spec, ok := c.Installed[kind+"/"+reg.ReadID]
		manager := "kubectl-client-side-apply"
		if !ok {
			spec, manager = map[string]any{}, "pulumi-kubernetes-render"
		}
		return mockMap(map[string]any{"kind": kind, "spec": spec, "metadata": map[string]any{"name": reg.ReadID,
			"managedFields": []any{map[string]any{"manager": manager, "operation": "Apply"}}}}), nil
	case reg.Type == "kubernetes:helm.sh/v3:Release" && strings.HasSuffix(reg.ReadID, "/karpenter"):
		values := c.ReleaseValues
		if values == nil {
			resources := map[string]any{"cpu": "1", "memory": "1Gi"}
			values = map[string]any{
				"settings":   map[string]any{"clusterName": "demo", "interruptionQueue": "demo"},
				"controller": map[string]any{"resources": map[string]any{"requests": resources, "limits": resources}},
			}
		}
		return mockMap(map[string]any{"name": "karpenter", "namespace": strings.TrimSuffix(reg.ReadID, "/karpenter"), "values": values}), nil
	}
	return nil, fmt.Errorf("render: no mock for reading %s %s", reg.Type, reg.ReadID)
}

func (m *Mocks) newResource(reg *Registration) (string, presource.PropertyMap, error) {
	in := reg.Inputs
	state := in.Copy()
	str := func(k string) string {
		if v, ok := in[presource.PropertyKey(k)]; ok && v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	set := func(k, v string) { state[presource.PropertyKey(k)] = presource.NewStringProperty(v) }
	physical := str("name")
	if physical == "" {
		physical = reg.Name
	}
	id := physical
	switch reg.Type {
	case "aws:iam/role:Role": // an imported role or policy keeps its path (Cluster.IAMPaths)
		set("arn", m.Cluster.iamArn("role", physical))
	case "aws:iam/policy:Policy":
		id = m.Cluster.iamArn("policy", physical)
		set("arn", id)
	case "aws:iam/instanceProfile:InstanceProfile":
		set("arn", fmt.Sprintf("arn:%s:iam::%s:instance-profile/%s", partition, account, physical))
	case "aws:iam/rolePolicyAttachment:RolePolicyAttachment":
		id = str("role") + "/" + inputs.NameFromArn(str("policyArn"))
	case "aws:iam/serviceLinkedRole:ServiceLinkedRole":
		set("name", "AWSServiceRoleForEC2Spot")
		id = fmt.Sprintf("arn:%s:iam::%s:role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot", partition, account)
		set("arn", id)
	case "aws:sqs/queue:Queue":
		id = fmt.Sprintf("https://sqs.%s.%s/%s/%s", region, dnsSuffix, account, physical)
		set("arn", fmt.Sprintf("arn:%s:sqs:%s:%s:%s", partition, region, account, physical))
		set("url", id)
	case "aws:sqs/queuePolicy:QueuePolicy":
		id = str("queueUrl")
	case "aws:cloudwatch/eventRule:EventRule":
		set("arn", fmt.Sprintf("arn:%s:events:%s:%s:rule/%s", partition, region, account, physical))
	case "aws:cloudwatch/eventTarget:EventTarget":
		id = str("rule") + "-" + str("targetId")
	case "aws:eks/accessEntry:AccessEntry":
		id = str("clusterName") + ":" + str("principalArn")
	case "aws:eks/podIdentityAssociation:PodIdentityAssociation":
		id = "a-render-" + reg.Name
		set("associationId", id)
	case "aws:eks/addon:Addon":
		id = str("clusterName") + ":" + str("addonName")
	case "aws:ec2/tag:Tag":
		id = str("resourceId") + "," + str("key")
	case "kubernetes:helm.sh/v3:Release":
		id = str("namespace") + "/" + physical
		set("status", "deployed")
	}
	return id, state, nil
}

func mockMap(m map[string]any) presource.PropertyMap {
	return presource.NewPropertyMapFromMap(m)
}
