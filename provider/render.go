package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/property"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"gopkg.in/yaml.v3"
)

// The fixed identity render runs under, so output never depends on credentials.
const (
	renderAccount   = "123456789012"
	renderRegion    = "us-west-2"
	renderPartition = "aws"
	renderDNSSuffix = "amazonaws.com"
)

// Rendered is what `render` prints: every child the component registers, in registration
// order, with its type token, parent, dependencies and inputs, and the component's outputs.
type Rendered struct {
	Component RenderedComponent  `json:"component"`
	Resources []RenderedResource `json:"resources"`
	Outputs   map[string]any     `json:"outputs"`
	// Invokes are the provider functions the component called (render_invokes.go).
	Invokes []RenderedInvoke `json:"invokes"`
}

type RenderedComponent struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type RenderedResource struct {
	Type      string         `json:"type"`
	Name      string         `json:"name"`
	Parent    string         `json:"parent"`
	DependsOn []string       `json:"dependsOn"`
	Inputs    map[string]any `json:"inputs"`
	// Aliases are earlier type tokens of the same resource: an upgrade that changes the type
	// updates it in place instead of replacing it.
	Aliases []string `json:"aliases,omitempty"`
	// ReadID is set for an existing object the component reads (and does not create).
	ReadID string `json:"readId,omitempty"`
	// RetainOnDelete marks a resource `pulumi destroy` leaves in place.
	RetainOnDelete bool `json:"retainOnDelete,omitempty"`
}

// RenderArgs parses a render args file (JSON or YAML): the component's inputs by their
// schema names, plus optional `type` (the component: karpenter:index:Karpenter, the default,
// karpenter:index:NodePool or karpenter:index:NodeClass), `name` (default "karpenter"),
// `project` and `stack` (which, like account and region, seed the physical names).
type RenderArgs struct {
	Type, Name, Project, Stack string
	Inputs                     property.Map
	// providers (package to "urn::id") and config ("ns:key" to value) are what the engine sends
	// with a construct besides the inputs. Render sends none; tests set them.
	providers, config map[string]string
	// cluster is the args' `cluster`: what the component reads when it checks its inputs
	// against the cluster (render_cluster.go); nil: it reads nothing (readCluster false).
	cluster *renderCluster
	// preview constructs as a preview does (tests; render is an `up`'s construct).
	preview bool
}

func ParseRenderArgs(data []byte) (RenderArgs, error) {
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return RenderArgs{}, fmt.Errorf("reading args: %w", err)
	}
	// A JSON round trip turns YAML's types (int, map[string]any) into JSON's.
	b, err := json.Marshal(raw)
	if err != nil {
		return RenderArgs{}, fmt.Errorf("reading args: %w", err)
	}
	var inputs map[string]any
	if err := json.Unmarshal(b, &inputs); err != nil || inputs == nil {
		return RenderArgs{}, errors.New("reading args: the file must hold an object of the component's inputs")
	}
	args := RenderArgs{Type: componentToken, Name: "karpenter", Project: "project", Stack: "stack"}
	for key, dst := range map[string]*string{"type": &args.Type, "name": &args.Name, "project": &args.Project, "stack": &args.Stack} {
		if v, ok := inputs[key]; ok {
			s, isString := v.(string)
			if !isString || s == "" {
				return RenderArgs{}, fmt.Errorf("%s: must be a non-empty string", key)
			}
			*dst = s
			delete(inputs, key)
		}
	}
	if _, ok := componentArgs[args.Type]; !ok {
		return RenderArgs{}, fmt.Errorf("type: %q is not a component of this package; one of: %s", args.Type, strings.Join(slices.Sorted(maps.Keys(componentArgs)), ", "))
	}
	if raw, ok := inputs["cluster"]; ok {
		delete(inputs, "cluster")
		if args.cluster, err = parseRenderCluster(raw, inputs); err != nil {
			return RenderArgs{}, err
		}
	} else if args.Type == componentToken {
		// Render reads no AWS: without a described cluster, nothing is read or checked.
		if read, set := inputs["readCluster"]; set && read != false {
			return RenderArgs{}, errors.New("readCluster: render reads no cluster; describe the one to check against in the args' `cluster` (render_cluster.go), or leave readCluster unset")
		}
		inputs["readCluster"] = false
	}
	args.Inputs = presource.FromResourcePropertyMap(presource.NewPropertyMapFromMap(inputs))
	return args, nil
}

// componentType is the component to construct: the Karpenter component unless `type` names
// another.
func (a RenderArgs) componentType() string {
	if a.Type == "" {
		return componentToken
	}
	return a.Type
}

// Render constructs the component in-process against mocks that answer the way AWS and
// the kubernetes provider would, and describes what it registered.
func Render(ctx context.Context, args RenderArgs) (*Rendered, error) {
	return render(ctx, args, &renderMocks{})
}

func render(ctx context.Context, args RenderArgs, mocks *renderMocks) (*Rendered, error) {
	rec := &registrationRecorder{}
	outputs, registered, err := construct(children.WithRecorder(ctx, rec), args, mocks)
	mocks.registered = registered
	if err != nil {
		return nil, err
	}
	out := &Rendered{
		Component: RenderedComponent{Type: args.componentType(), Name: args.Name},
		Resources: []RenderedResource{},
		Outputs:   plainMap(presource.FromResourcePropertyMap(outputs)),
		Invokes:   renderedInvokes(mocks, rec),
	}
	for _, key := range rec.order() {
		reg, ok := registered[key]
		if !ok || !reg.custom {
			continue // the component itself
		}
		out.Resources = append(out.Resources, reg.rendered())
	}
	return out, nil
}

// rendered describes one registered child as render prints it.
func (reg *registration) rendered() RenderedResource {
	deps := map[string]bool{}
	for _, u := range reg.deps {
		deps[presource.URN(u).Name()] = true
	}
	return RenderedResource{
		Type:           reg.typ,
		Name:           reg.name,
		Parent:         presource.URN(reg.parent).Name(),
		DependsOn:      append([]string{}, slices.Sorted(maps.Keys(deps))...), // [] rather than null in JSON
		Inputs:         plainMap(presource.FromResourcePropertyMap(reg.inputs)),
		Aliases:        reg.aliases,
		ReadID:         reg.readID,
		RetainOnDelete: reg.retainOnDelete,
	}
}

// registrationRecorder notes the order in which the component registers its children; the
// mock monitor sees them in whatever order their inputs resolve.
type registrationRecorder struct {
	mu   sync.Mutex
	keys []string
	// reads are the result fields the component reads from each invoke, by token.
	reads map[string][]string
}

func (r *registrationRecorder) Record(args *pulumi.ResourceTransformationArgs) *pulumi.ResourceTransformationResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, args.Type+"::"+args.Name)
	return nil
}

func (r *registrationRecorder) order() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.keys...)
}

// renderMocks answers invokes, registrations and reads the way AWS and the kubernetes
// provider would name and identify things.
type renderMocks struct {
	// missingAddons are EKS add-ons the mock cluster does not have.
	missingAddons map[string]bool
	// regionShape is how getRegion answers: "v6" (name only, pulumi-aws 6.x), "v7" (region,
	// and the deprecated name; the default) "v7-no-name" (a later major without name) or "empty" (neither: must fail).
	regionShape string
	// cluster answers the cluster checks' reads (render_cluster.go).
	cluster *renderCluster
	// registered is filled by a render: what the component registered, by "type::name".
	registered map[string]*registration
	// invoked are the invokes the monitor answered, as sent.
	invokeMu sync.Mutex
	invoked  []invocation
}

func (m *renderMocks) call(token string, args presource.PropertyMap) (presource.PropertyMap, error) {
	if result, ok, err := m.cluster.call(token, args); ok {
		return result, err
	}
	arg := func(k string) string { return args[presource.PropertyKey(k)].StringValue() }
	switch token {
	case "aws:index/getPartition:getPartition":
		return mockMap(map[string]any{"id": renderPartition, "partition": renderPartition, "dnsSuffix": renderDNSSuffix, "reverseDnsPrefix": "com.amazonaws"}), nil
	case "aws:index/getRegion:getRegion":
		region := map[string]any{"id": renderRegion, "description": "US West (Oregon)", "endpoint": "ec2." + renderRegion + ".amazonaws.com"}
		switch m.regionShape {
		case "v6":
			region["name"] = renderRegion
		case "v7-no-name":
			region["region"] = renderRegion
		case "empty":
		default:
			region["region"], region["name"] = renderRegion, renderRegion
		}
		return mockMap(region), nil
	case "aws:index/getCallerIdentity:getCallerIdentity":
		return mockMap(map[string]any{"id": renderAccount, "accountId": renderAccount, "arn": "arn:aws:iam::" + renderAccount + ":user/render", "userId": "AIDARENDER"}), nil
	case "aws:eks/getAddon:getAddon":
		addon := arg("addonName")
		if m.missingAddons[addon] {
			return nil, fmt.Errorf("reading EKS Add-On (%s:%s): couldn't find resource", arg("clusterName"), addon)
		}
		return mockMap(map[string]any{"id": arg("clusterName") + ":" + addon, "addonName": addon, "addonVersion": "v1.3.8-eksbuild.2"}), nil
	case "aws:iam/getInstanceProfile:getInstanceProfile":
		// Instance profiles made by hand usually hold a role of the same name.
		name := arg("name")
		return mockMap(map[string]any{"id": name, "name": name, "path": "/",
			"arn":     fmt.Sprintf("arn:%s:iam::%s:instance-profile/%s", renderPartition, renderAccount, name),
			"roleArn": fmt.Sprintf("arn:%s:iam::%s:role/%s", renderPartition, renderAccount, name), "roleName": name}), nil
	}
	return nil, fmt.Errorf("render: no mock for invoke %s", token)
}

// read answers reads of existing objects. The only one is kube-system/aws-auth, which on an
// EKS cluster in CONFIG_MAP mode already maps the managed node group's role.
func (m *renderMocks) read(reg *registration) (presource.PropertyMap, error) {
	if reg.typ != "kubernetes:core/v1:ConfigMap" || reg.readID != "kube-system/aws-auth" {
		return nil, fmt.Errorf("render: no mock for reading %s %s", reg.typ, reg.readID)
	}
	return mockMap(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "aws-auth", "namespace": "kube-system"},
		"data": map[string]any{"mapRoles": "- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: arn:aws:iam::" + renderAccount +
			":role/managed-node-group\n  username: system:node:{{EC2PrivateDNSName}}\n"},
	}), nil
}

func (m *renderMocks) newResource(reg *registration) (string, presource.PropertyMap, error) {
	in := reg.inputs
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
		physical = reg.name
	}
	id := physical
	switch reg.typ {
	case "aws:iam/role:Role":
		set("arn", fmt.Sprintf("arn:%s:iam::%s:role/%s", renderPartition, renderAccount, physical))
	case "aws:iam/policy:Policy":
		id = fmt.Sprintf("arn:%s:iam::%s:policy/%s", renderPartition, renderAccount, physical)
		set("arn", id)
	case "aws:iam/instanceProfile:InstanceProfile":
		set("arn", fmt.Sprintf("arn:%s:iam::%s:instance-profile/%s", renderPartition, renderAccount, physical))
	case "aws:iam/rolePolicyAttachment:RolePolicyAttachment":
		id = str("role") + "/" + inputs.NameFromArn(str("policyArn"))
	case "aws:iam/serviceLinkedRole:ServiceLinkedRole":
		set("name", "AWSServiceRoleForEC2Spot")
		id = fmt.Sprintf("arn:%s:iam::%s:role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot", renderPartition, renderAccount)
		set("arn", id)
	case "aws:sqs/queue:Queue":
		id = fmt.Sprintf("https://sqs.%s.%s/%s/%s", renderRegion, renderDNSSuffix, renderAccount, physical)
		set("arn", fmt.Sprintf("arn:%s:sqs:%s:%s:%s", renderPartition, renderRegion, renderAccount, physical))
		set("url", id)
	case "aws:sqs/queuePolicy:QueuePolicy":
		id = str("queueUrl")
	case "aws:cloudwatch/eventRule:EventRule":
		set("arn", fmt.Sprintf("arn:%s:events:%s:%s:rule/%s", renderPartition, renderRegion, renderAccount, physical))
	case "aws:cloudwatch/eventTarget:EventTarget":
		id = str("rule") + "-" + str("targetId")
	case "aws:eks/accessEntry:AccessEntry":
		id = str("clusterName") + ":" + str("principalArn")
	case "aws:eks/podIdentityAssociation:PodIdentityAssociation":
		id = "a-render-" + reg.name
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

// plainMap turns property values into JSON values. Secrets are masked: render output is
// meant to be reviewed and shared.
func plainMap(m property.Map) map[string]any {
	out := map[string]any{}
	for k, v := range m.All {
		out[k] = plainValue(v)
	}
	return out
}

func plainValue(v property.Value) any {
	switch {
	case v.Secret():
		return "[secret]"
	case v.IsComputed():
		return "[unknown]"
	case v.IsNull():
		return nil
	case v.IsString():
		return v.AsString()
	case v.IsBool():
		return v.AsBool()
	case v.IsNumber():
		return v.AsNumber()
	case v.IsArray():
		out := []any{}
		for _, e := range v.AsArray().All {
			out = append(out, plainValue(e))
		}
		return out
	case v.IsMap():
		return plainMap(v.AsMap())
	case v.IsResourceReference():
		return string(v.AsResourceReference().URN)
	}
	return fmt.Sprintf("%v", v)
}

// RenderJSON is Render printed: indented JSON with sorted keys.
func RenderJSON(ctx context.Context, data []byte) ([]byte, error) {
	args, err := ParseRenderArgs(data)
	if err != nil {
		return nil, err
	}
	out, err := Render(ctx, args)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
