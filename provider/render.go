package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/blang/semver"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
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
}

// RenderArgs parses a render args file (JSON or YAML): the component's inputs by their
// schema names, plus optional `name` (default "karpenter"), `project` and `stack` (which,
// like account and region, seed the physical names).
type RenderArgs struct {
	Name, Project, Stack string
	Inputs               property.Map
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
	args := RenderArgs{Name: "karpenter", Project: "project", Stack: "stack"}
	for key, dst := range map[string]*string{"name": &args.Name, "project": &args.Project, "stack": &args.Stack} {
		if v, ok := inputs[key]; ok {
			s, isString := v.(string)
			if !isString || s == "" {
				return RenderArgs{}, fmt.Errorf("%s: must be a non-empty string", key)
			}
			*dst = s
			delete(inputs, key)
		}
	}
	args.Inputs = presource.FromResourcePropertyMap(presource.NewPropertyMapFromMap(inputs))
	return args, nil
}

// Render constructs the component in-process against mocks that answer the way AWS and
// the kubernetes provider would, and describes what it registered.
func Render(ctx context.Context, args RenderArgs) (*Rendered, error) {
	mocks := &renderMocks{registered: map[string]integration.MockResourceArgs{}}
	return render(ctx, args, mocks)
}

func render(ctx context.Context, args RenderArgs, mocks *renderMocks) (*Rendered, error) {
	prov, err := Provider()
	if err != nil {
		return nil, err
	}
	rec := &registrationRecorder{}
	ctx, cancel := context.WithCancel(withRegistrationRecorder(ctx, rec))
	defer cancel()
	server, err := integration.NewServer(ctx, Name, semver.MustParse("0.0.0"),
		integration.WithProvider(prov),
		integration.WithMocks(&integration.MockResourceMonitor{CallF: mocks.call, NewResourceF: mocks.newResource}))
	if err != nil {
		return nil, err
	}
	resp, err := server.Construct(p.ConstructRequest{
		Urn:    presource.NewURN(tokens.QName(args.Stack), tokens.PackageName(args.Project), "", tokens.Type(componentToken), args.Name),
		Inputs: args.Inputs,
	})
	if err != nil {
		return nil, cleanConstructError(err)
	}

	out := &Rendered{
		Component: RenderedComponent{Type: componentToken, Name: args.Name},
		Resources: []RenderedResource{},
		Outputs:   plainMap(resp.State),
	}
	for _, key := range rec.order() {
		reg, ok := mocks.registered[key]
		if !ok || !reg.Custom {
			continue // the component itself
		}
		deps := map[string]bool{}
		for _, u := range reg.RegisterRPC.GetDependencies() {
			deps[presource.URN(u).Name()] = true
		}
		var aliases []string
		for _, a := range reg.RegisterRPC.GetAliases() {
			if t := a.GetSpec().GetType(); t != "" {
				aliases = append(aliases, t)
			}
		}
		out.Resources = append(out.Resources, RenderedResource{
			Type:      string(reg.TypeToken),
			Name:      reg.Name,
			Parent:    presource.URN(reg.RegisterRPC.GetParent()).Name(),
			DependsOn: sortedKeys(deps),
			Inputs:    plainMap(reg.Inputs),
			Aliases:   aliases,
		})
	}
	return out, nil
}

// cleanConstructError keeps the message that names the field and drops the gRPC wrapping.
func cleanConstructError(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, "desc = "); i >= 0 {
		msg = msg[i+len("desc = "):]
	}
	return errors.New(msg)
}

// registrationRecorder notes the order in which the component registers its children; the
// mock monitor sees them in whatever order their inputs resolve.
type registrationRecorder struct {
	mu   sync.Mutex
	keys []string
}

type recorderKey struct{}

func withRegistrationRecorder(ctx context.Context, r *registrationRecorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

func registrationRecorderFrom(ctx context.Context) *registrationRecorder {
	r, _ := ctx.Value(recorderKey{}).(*registrationRecorder)
	return r
}

func (r *registrationRecorder) record(args *pulumi.ResourceTransformationArgs) *pulumi.ResourceTransformationResult {
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

// renderMocks answers invokes and registrations the way AWS would name and identify things.
type renderMocks struct {
	mu         sync.Mutex
	registered map[string]integration.MockResourceArgs
}

func (m *renderMocks) call(args integration.MockCallArgs) (property.Map, error) {
	switch args.Token {
	case "aws:index/getPartition:getPartition":
		return mockMap(map[string]any{"id": renderPartition, "partition": renderPartition, "dnsSuffix": renderDNSSuffix, "reverseDnsPrefix": "com.amazonaws"}), nil
	case "aws:index/getRegion:getRegion":
		return mockMap(map[string]any{"id": renderRegion, "name": renderRegion, "description": "US West (Oregon)", "endpoint": "ec2." + renderRegion + ".amazonaws.com"}), nil
	case "aws:index/getCallerIdentity:getCallerIdentity":
		return mockMap(map[string]any{"id": renderAccount, "accountId": renderAccount, "arn": "arn:aws:iam::" + renderAccount + ":user/render", "userId": "AIDARENDER"}), nil
	}
	return property.Map{}, fmt.Errorf("render: no mock for invoke %s", args.Token)
}

func (m *renderMocks) newResource(args integration.MockResourceArgs) (string, property.Map, error) {
	m.mu.Lock()
	m.registered[string(args.TypeToken)+"::"+args.Name] = args
	m.mu.Unlock()

	state := args.Inputs.AsMap()
	set := func(k string, v string) { state[k] = property.New(v) }
	name := args.Inputs.Get("name")
	physical := args.Name
	if name.IsString() {
		physical = name.AsString()
	}
	id := physical
	switch args.TypeToken {
	case "aws:iam/role:Role":
		set("arn", fmt.Sprintf("arn:%s:iam::%s:role/%s", renderPartition, renderAccount, physical))
		set("uniqueId", "AROARENDER"+strings.ToUpper(physical[len(physical)-7:]))
	case "aws:iam/policy:Policy":
		id = fmt.Sprintf("arn:%s:iam::%s:policy/%s", renderPartition, renderAccount, physical)
		set("arn", id)
	case "aws:iam/instanceProfile:InstanceProfile":
		set("arn", fmt.Sprintf("arn:%s:iam::%s:instance-profile/%s", renderPartition, renderAccount, physical))
	case "aws:iam/rolePolicyAttachment:RolePolicyAttachment":
		id = args.Inputs.Get("role").AsString() + "/" + nameFromArn(args.Inputs.Get("policyArn").AsString())
	case "aws:sqs/queue:Queue":
		id = fmt.Sprintf("https://sqs.%s.%s/%s/%s", renderRegion, renderDNSSuffix, renderAccount, physical)
		set("arn", fmt.Sprintf("arn:%s:sqs:%s:%s:%s", renderPartition, renderRegion, renderAccount, physical))
		set("url", id)
	case "aws:sqs/queuePolicy:QueuePolicy":
		id = args.Inputs.Get("queueUrl").AsString()
	case "aws:cloudwatch/eventRule:EventRule":
		set("arn", fmt.Sprintf("arn:%s:events:%s:%s:rule/%s", renderPartition, renderRegion, renderAccount, physical))
	case "aws:cloudwatch/eventTarget:EventTarget":
		id = args.Inputs.Get("rule").AsString() + "-" + args.Inputs.Get("targetId").AsString()
	case "aws:eks/accessEntry:AccessEntry":
		cluster := args.Inputs.Get("clusterName").AsString()
		id = cluster + ":" + args.Inputs.Get("principalArn").AsString()
		set("accessEntryArn", fmt.Sprintf("arn:%s:eks:%s:%s:access-entry/%s/role/%s/%s", renderPartition, renderRegion, renderAccount, cluster, renderAccount, physical))
	case "kubernetes:helm.sh/v3:Release":
		id = args.Inputs.Get("namespace").AsString() + "/" + physical
		set("status", "deployed")
	}
	return id, property.NewMap(state), nil
}

func mockMap(m map[string]any) property.Map {
	return presource.FromResourcePropertyMap(presource.NewPropertyMapFromMap(m))
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
