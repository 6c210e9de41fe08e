package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// The IAM check of the Karpenter controller's calls. Each recorded AWS call is turned into the
// authorizations AWS makes for it — the call's own action on the resources it names, with the
// tags it sets (aws:RequestTag, aws:TagKeys) and the tags those resources had (aws:ResourceTag);
// for a launch (CreateFleet, RunInstances; dry runs too) also each resource it creates and uses
// (fleet, instance, volume, network interface and Spot request; launch template, subnet, security
// group, image), ec2:CreateTags for the tags set on create (ec2:CreateAction), and iam:PassRole of
// the instance profile's role, as the EC2 and IAM service authorization references document —
// and evaluated against the identity policies of the controller's role with
// @cloud-copilot/iam-simulate (tests/e2e/lab/iam-simulator). Only the calls' own authorizations and these
// documented dependent ones are modelled.

// IAMRequest is one authorization.
type IAMRequest struct {
	ID       int    `json:"id"`
	Call     string `json:"-"` // the call it is for, for messages
	Action   string `json:"action"`
	Resource string `json:"resource"`
	// Context are the request's condition keys: a string or a list of strings each.
	Context map[string]any `json:"context"`
	// Dependent is set on the authorizations of what a launch creates and uses, modelled for
	// both CreateFleet and RunInstances: the IAM service reference lists, per action, the
	// resource types it authorizes, and a pairing it does not list (CreateFleet on a security
	// group) is not an authorization AWS makes. The simulator, which reads that reference, says
	// so ("no.resource.types"); such a request is dropped, not failed.
	Dependent bool `json:"-"`
}

// IAMResult is the simulator's verdict on one request.
type IAMResult struct {
	ID         int      `json:"id"`
	Result     string   `json:"result"` // Allowed, ImplicitlyDenied, ExplicitlyDenied, Error
	AllowedBy  []string `json:"allowedBy"`
	Candidates []struct {
		Statement string `json:"statement"`
		Failed    string `json:"failed"`
	} `json:"candidates"`
	Errors string `json:"errors"`
}

// IAMPolicy is one identity policy of the controller's role.
type IAMPolicy struct {
	Name   string         `json:"name"`
	Policy map[string]any `json:"policy"`
}

// iamSimulatorVersion is the pinned @cloud-copilot/iam-simulate (tests/e2e/lab/iam-simulator/package.json).
const iamSimulatorVersion = "0.1.173"

// iamSimulatorModules is where tests/e2e/install-e2e-deps.sh installs the simulator's
// node_modules; IAM_SIMULATE_MODULES overrides it.
func iamSimulatorModules() string {
	if p := os.Getenv("IAM_SIMULATE_MODULES"); p != "" {
		return p
	}
	return filepath.Join(repo.CacheDir(), "iam-simulate-"+iamSimulatorVersion, "node_modules")
}

// Simulate evaluates requests for principal against policies.
func Simulate(principal string, policies []IAMPolicy, requests []IAMRequest) ([]IAMResult, error) {
	return SimulateWithResourcePolicy(principal, policies, nil, requests)
}

// publicParameterArn is an SSM parameter ARN without an account: AWS's public parameters (the EKS
// optimized-AMI ones under /aws/service) have none, arn:aws:ssm:<region>::parameter/aws/service/….
// IAM matches them against statements of the same form; @cloud-copilot/iam-simulate 0.1.173
// derives a request's resource type from the service reference's ARN format
// (arn:${Partition}:ssm:${Region}:${Account}:parameter/…), which an empty account does not match
// ("no.resource.types"). For the simulator only, the empty account becomes publicParameterAccount
// in the requests and in the policies alike: a statement naming no account still matches, one
// naming an account still does not, and a wildcard still does.
var publicParameterArn = regexp.MustCompile(`(arn:aws:ssm:[^:"]*)::parameter/`)

const publicParameterAccount = "aws"

// SimulateWithResourcePolicy evaluates requests for principal against its identity policies and
// the resource's policy (nil: none): a queue policy for a service principal's delivery, a role's
// trust policy for its assumption.
func SimulateWithResourcePolicy(principal string, policies []IAMPolicy, resourcePolicy map[string]any, requests []IAMRequest) ([]IAMResult, error) {
	tests, err := repo.TestsDir()
	if err != nil {
		return nil, err
	}
	if policies == nil {
		policies = []IAMPolicy{}
	}
	input := map[string]any{"principal": principal, "accountId": MotoAccount, "policies": policies, "requests": requests}
	if resourcePolicy != nil {
		input["resourcePolicy"] = resourcePolicy
	}
	in, err := json.Marshal(input)
	in = publicParameterArn.ReplaceAll(in, []byte("${1}:"+publicParameterAccount+":parameter/"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", filepath.Join(tests, "e2e", "lab", "iam-simulator", "simulate.cjs"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+iamSimulatorModules())
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node simulate.cjs (NODE_PATH %s; run `make e2e-deps`): %w\n%s", iamSimulatorModules(), err, stderr.String())
	}
	var results []IAMResult
	if err := json.Unmarshal(out, &results); err != nil {
		return nil, fmt.Errorf("simulate.cjs output: %w", err)
	}
	return results, nil
}

// IAMRequests are the authorizations of the calls (an error names a call the model does not know).
func IAMRequests(calls []AWSCall) ([]IAMRequest, error) {
	var out []IAMRequest
	var unknown []string
	for i, c := range calls {
		reqs, err := requestsFor(c)
		if err != nil {
			unknown = append(unknown, fmt.Sprintf("call %d %s: %v", i, c.IAMAction(), err))
			continue
		}
		for _, r := range reqs {
			r.ID = len(out)
			r.Call = fmt.Sprintf("#%d %s", i, c.IAMAction())
			if c.DryRun {
				r.Call += " (dry run)"
			}
			out = append(out, r)
		}
	}
	if len(unknown) > 0 {
		return out, fmt.Errorf("calls the IAM model does not know:\n%s", strings.Join(unknown, "\n"))
	}
	return out, nil
}

func regional(service, resource string) string {
	return fmt.Sprintf("arn:aws:%s:%s:%s:%s", service, Region, MotoAccount, resource)
}

// tagContext is the condition keys of tags set by a request: aws:RequestTag/<k> and aws:TagKeys.
func tagContext(ctx map[string]any, tags map[string]string) map[string]any {
	if len(tags) == 0 {
		return ctx
	}
	var keys []string
	for k, v := range tags {
		ctx["aws:RequestTag/"+k] = v
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ctx["aws:TagKeys"] = keys
	return ctx
}

// resourceTagContext adds aws:ResourceTag/<k> of an existing resource.
func resourceTagContext(ctx map[string]any, tags map[string]string) map[string]any {
	for k, v := range tags {
		ctx["aws:ResourceTag/"+k] = v
	}
	return ctx
}

func baseContext(c AWSCall) map[string]any {
	region := Region
	switch c.Service {
	case "iam":
		region = "us-east-1" // IAM's endpoint
	case "pricing":
		region = "us-east-1" // Karpenter's pricing client
	}
	return map[string]any{"aws:RequestedRegion": region}
}

// ec2Tags are the tags of TagSpecification.N of a query-protocol request, by resource type.
func ec2Tags(c AWSCall, prefix string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for n := 1; ; n++ {
		spec := fmt.Sprintf("%sTagSpecification.%d.", prefix, n)
		typ := c.Params.Get(spec + "ResourceType")
		if typ == "" {
			return out
		}
		tags := map[string]string{}
		for m := 1; ; m++ {
			k := c.Params.Get(fmt.Sprintf("%sTag.%d.Key", spec, m))
			if k == "" {
				break
			}
			tags[k] = c.Params.Get(fmt.Sprintf("%sTag.%d.Value", spec, m))
		}
		out[typ] = tags
	}
}

func requestsFor(c AWSCall) ([]IAMRequest, error) {
	req := func(action, resource string, ctx map[string]any) IAMRequest {
		return IAMRequest{Action: action, Resource: resource, Context: ctx}
	}
	switch c.Service {
	case "ec2":
		switch {
		case strings.HasPrefix(c.Action, "Describe"):
			return []IAMRequest{req(c.IAMAction(), "*", baseContext(c))}, nil
		case c.Action == "CreateLaunchTemplate":
			tags := ec2Tags(c, "")["launch-template"]
			return []IAMRequest{
				req("ec2:CreateLaunchTemplate", regional("ec2", "launch-template/*"), tagContext(baseContext(c), tags)),
				req("ec2:CreateTags", regional("ec2", "launch-template/*"),
					tagContext(withKey(baseContext(c), "ec2:CreateAction", "CreateLaunchTemplate"), tags)),
			}, nil
		case c.Action == "CreateFleet" || c.Action == "RunInstances":
			return launchRequests(c)
		case c.Action == "CreateTags":
			set := map[string]string{}
			for m := 1; ; m++ {
				k := c.Params.Get(fmt.Sprintf("Tag.%d.Key", m))
				if k == "" {
					break
				}
				set[k] = c.Params.Get(fmt.Sprintf("Tag.%d.Value", m))
			}
			var out []IAMRequest
			for arn, tags := range c.ResourceTags {
				out = append(out, req("ec2:CreateTags", arn, tagContext(resourceTagContext(baseContext(c), tags), set)))
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("no tags of the tagged resources were read")
			}
			return out, nil
		case c.Action == "TerminateInstances" || c.Action == "DeleteLaunchTemplate":
			var out []IAMRequest
			for arn, tags := range c.ResourceTags {
				out = append(out, req(c.IAMAction(), arn, resourceTagContext(baseContext(c), tags)))
			}
			if len(out) == 0 && c.Status >= 400 && c.Status < 500 {
				// The resource was gone before the call (Karpenter deleting a launch template its
				// garbage collection or another reconcile had deleted): moto answered NotFound, as
				// AWS does, and nothing was done; there are no tags to authorize against.
				return nil, nil
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("no tags of the resources it acts on were read (moto answered %d)", c.Status)
			}
			return out, nil
		}
	case "iam":
		profile := regionless("iam", "instance-profile/"+c.Params.Get("InstanceProfileName"))
		var tags map[string]string
		for arn, t := range c.ResourceTags {
			profile, tags = arn, t
		}
		switch c.Action {
		case "GetInstanceProfile", "RemoveRoleFromInstanceProfile", "DeleteInstanceProfile":
			return []IAMRequest{req(c.IAMAction(), profile, resourceTagContext(baseContext(c), tags))}, nil
		case "ListInstanceProfiles":
			// A list action: IAM authorizes it on "*" only.
			return []IAMRequest{req(c.IAMAction(), "*", baseContext(c))}, nil
		case "CreateInstanceProfile", "TagInstanceProfile":
			path := c.Params.Get("Path")
			if path == "" {
				path = "/"
			}
			if c.Action == "CreateInstanceProfile" {
				profile = regionless("iam", "instance-profile"+path+c.Params.Get("InstanceProfileName"))
			}
			set := map[string]string{}
			for m := 1; ; m++ {
				k := c.Params.Get(fmt.Sprintf("Tags.member.%d.Key", m))
				if k == "" {
					break
				}
				set[k] = c.Params.Get(fmt.Sprintf("Tags.member.%d.Value", m))
			}
			return []IAMRequest{req(c.IAMAction(), profile, tagContext(resourceTagContext(baseContext(c), tags), set))}, nil
		case "AddRoleToInstanceProfile":
			return []IAMRequest{
				req(c.IAMAction(), profile, resourceTagContext(baseContext(c), tags)),
				// Adding a role to an instance profile passes the role (to EC2, through the profile).
				req("iam:PassRole", regionless("iam", "role/"+c.Params.Get("RoleName")),
					withKey(baseContext(c), "iam:PassedToService", "ec2.amazonaws.com")),
			}, nil
		}
	case "eks":
		if c.Action == "DescribeCluster" {
			return []IAMRequest{req(c.IAMAction(), regional("eks", "cluster/"+c.Params.Get("name")), baseContext(c))}, nil
		}
	case "sqs":
		queue := c.Params.Get("QueueName")
		if u := c.Params.Get("QueueUrl"); u != "" {
			queue = u[strings.LastIndex(u, "/")+1:]
		}
		switch c.Action {
		case "GetQueueUrl", "ReceiveMessage", "DeleteMessage", "GetQueueAttributes":
			return []IAMRequest{req(c.IAMAction(), regional("sqs", queue), baseContext(c))}, nil
		}
	case "sts", "eks-auth":
		if c.Action == "AssumeRoleWithWebIdentity" || c.Action == "AssumeRoleForPodIdentity" {
			// Not the controller's: the role's trust policy authorizes the assumption (checked at
			// the call: AWSCall.Trust).
			return nil, nil
		}
	case "pricing":
		if c.Action == "GetProducts" {
			return []IAMRequest{req(c.IAMAction(), "*", baseContext(c))}, nil
		}
	case "ssm":
		if c.Action == "GetParameter" {
			return []IAMRequest{req(c.IAMAction(), fmt.Sprintf("arn:aws:ssm:%s::parameter%s", Region, c.Params.Get("Name")), baseContext(c))}, nil
		}
	}
	return nil, fmt.Errorf("not modelled")
}

func regionless(service, resource string) string {
	return fmt.Sprintf("arn:aws:%s::%s:%s", service, MotoAccount, resource)
}

func withKey(ctx map[string]any, k string, v any) map[string]any {
	ctx[k] = v
	return ctx
}

// launchRequests are the authorizations of CreateFleet or RunInstances (a dry run makes the same).
func launchRequests(c AWSCall) ([]IAMRequest, error) {
	if len(c.LaunchTemplates) == 0 {
		return nil, fmt.Errorf("no launch template was read")
	}
	actions := []string{"ec2:RunInstances"}
	if c.Action == "CreateFleet" {
		actions = []string{"ec2:CreateFleet", "ec2:RunInstances"}
	}
	var out []IAMRequest
	add := func(resource string, ctx map[string]any, acts ...string) {
		for _, a := range acts {
			copied := map[string]any{}
			for k, v := range ctx {
				copied[k] = v
			}
			out = append(out, IAMRequest{Action: a, Resource: resource, Context: copied, Dependent: true})
		}
	}
	requested := ec2Tags(c, "")
	// What the launch creates, with the tags set on each on create (the request's tag
	// specifications over the launch template's).
	created := []string{"instance", "volume", "network-interface"}
	if c.Action == "CreateFleet" {
		add(regional("ec2", "fleet/*"), tagContext(baseContext(c), requested["fleet"]), "ec2:CreateFleet")
		if len(requested["fleet"]) > 0 {
			add(regional("ec2", "fleet/*"), tagContext(withKey(baseContext(c), "ec2:CreateAction", c.Action), requested["fleet"]), "ec2:CreateTags")
		}
	}
	if spot(c) {
		created = append(created, "spot-instances-request")
	}
	lt := c.LaunchTemplates[0]
	for _, typ := range created {
		tags := map[string]string{}
		for k, v := range lt.TagSpecs[typ] {
			tags[k] = v
		}
		for k, v := range requested[typ] {
			tags[k] = v
		}
		add(regional("ec2", typ+"/*"), tagContext(baseContext(c), tags), actions...)
		if len(tags) > 0 {
			add(regional("ec2", typ+"/*"), tagContext(withKey(baseContext(c), "ec2:CreateAction", c.Action), tags), "ec2:CreateTags")
		}
	}
	// What it uses.
	images, subnets, groups := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, t := range c.LaunchTemplates {
		add(regional("ec2", "launch-template/"+t.ID), resourceTagContext(baseContext(c), t.Tags), actions...)
		if t.ImageID != "" {
			images[t.ImageID] = true
		}
		for _, g := range t.SecurityGroupIDs {
			groups[g] = true
		}
		if t.RoleArn != "" {
			add(t.RoleArn, withKey(baseContext(c), "iam:PassedToService", "ec2.amazonaws.com"), "iam:PassRole")
		}
	}
	for k, vs := range c.Params {
		switch {
		case strings.HasSuffix(k, ".SubnetId") || k == "SubnetId":
			subnets[vs[0]] = true
		case strings.HasSuffix(k, ".ImageId") || k == "ImageId":
			images[vs[0]] = true
		}
	}
	for _, id := range sortedKeys(images) {
		add(fmt.Sprintf("arn:aws:ec2:%s::image/%s", Region, id), baseContext(c), actions...)
	}
	for _, id := range sortedKeys(subnets) {
		add(regional("ec2", "subnet/"+id), baseContext(c), actions...)
	}
	for _, id := range sortedKeys(groups) {
		add(regional("ec2", "security-group/"+id), baseContext(c), actions...)
	}
	return out, nil
}

// spot: the launch asks for Spot capacity.
func spot(c AWSCall) bool {
	return c.Params.Get("TargetCapacitySpecification.DefaultTargetCapacityType") == "spot" ||
		c.Params.Get("InstanceMarketOptions.MarketType") == "spot" || len(c.Params["SpotOptions.AllocationStrategy"]) > 0
}
