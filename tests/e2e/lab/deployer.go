package lab

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// The deployer's AWS permissions: what the identity running `pulumi preview`, `up`, `refresh` and
// `destroy` is asked for, checked against the policy users are told to attach
// (docs/deployer-policy.json).
//
// What stands in: the aws stand-in does each operation against moto with calls of its own; a real
// deployer runs pulumi-aws, whose terraform-provider-aws makes the calls. So the check does not
// look at the stand-in's calls: it reads which operations the engine asked for (the stand-in's
// operation log, STANDIN_LOG: each create, read, update, delete and read function, with what an
// update changed and what a function was given) and turns each into the AWS actions
// terraform-provider-aws's code for that resource or data source calls (terraformCalls, each with
// the file it was read from). The operations are real (the engine's, for the component's children
// in each scenario); the actions per operation are read from terraform-provider-aws's source.

// StandInOp is one line of the aws stand-in's operation log.
type StandInOp struct {
	Op      string   // Create, Read, Update, Delete, Invoke
	Type    string   // the resource type or function token
	Name    string   // the resource's name in its URN ("" for a function)
	Parents string   // the URN's type chain above it: karpenter:index:Karpenter for the component's children
	Keys    []string // the inputs an Update changed, the arguments an Invoke was given
}

// ReadOpLog reads the aws stand-in's operation log (absent: no operation).
func ReadOpLog(path string) ([]StandInOp, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []StandInOp
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 8 || fields[1] != "aws" {
			return nil, fmt.Errorf("%s: a line not in the operation log's format: %q", path, sc.Text())
		}
		dash := func(s string) string {
			if s == "-" {
				return ""
			}
			return s
		}
		op := StandInOp{Op: fields[2], Type: fields[3], Name: dash(fields[4]), Parents: dash(fields[6])}
		if k := dash(fields[7]); k != "" {
			op.Keys = strings.Split(k, ",")
		}
		out = append(out, op)
	}
	return out, sc.Err()
}

// componentType is the component's type token, the first link of its children's URN type chain.
const componentType = "karpenter:index:Karpenter"

// OfTheComponent: an operation on one of the component's children, or a read function the
// component calls (terraformDataSources; an invoke does not say who made it, so one the program's
// pulumi-eks also makes, getSubnets, counts too, and one only pulumi-eks makes, getVpc, does not).
// TestDeployerTablesCoverTheComponent holds the tables to provider/children/resources.go.
func (o StandInOp) OfTheComponent() bool {
	if o.Op == "Invoke" {
		_, ok := terraformDataSources[o.Type]
		return ok
	}
	return o.Parents == componentType || strings.HasPrefix(o.Parents, componentType+"$")
}

// DeployerActions are the AWS actions terraform-provider-aws calls for the component's operations
// of the log, each with the operations that needed it (for messages). An operation of a type or
// function the table does not know is an error: a new child cannot go unchecked.
func DeployerActions(ops []StandInOp) (map[string][]string, error) {
	out := map[string][]string{}
	var unknown []string
	for _, o := range ops {
		if !o.OfTheComponent() {
			continue
		}
		actions, err := terraformActions(o)
		if err != nil {
			unknown = append(unknown, err.Error())
			continue
		}
		what := o.Op + " " + o.Type
		for _, a := range actions {
			if !slices.Contains(out[a], what) {
				out[a] = append(out[a], what)
			}
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("terraform-provider-aws's calls are not known for %s (add them to terraformCalls or terraformDataSources, read from its source)", strings.Join(slices.Compact(unknown), "; "))
	}
	return out, nil
}

// DeployerPolicyPath is the policy users attach to the deployer (docs/deployer-policy.json).
func DeployerPolicyPath() (string, error) {
	tests, err := repo.TestsDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(tests), "docs", "deployer-policy.json"), nil
}

// DeployerVerdict is the deployer policy's verdict on the actions of one run.
type DeployerVerdict struct {
	// Denied are the actions the policy does not allow, each with the operations that needed it.
	Denied map[string][]string
	// OnlyBy are, for each statement (its Sid), the actions no other statement allows: what
	// removing that statement would deny.
	OnlyBy map[string][]string
}

// CheckDeployerPolicy evaluates each action against the deployer policy with the IAM simulator
// (on any resource: the policy names none, the component's names being the user's inputs).
func CheckDeployerPolicy(actions map[string][]string) (DeployerVerdict, error) {
	path, err := DeployerPolicyPath()
	if err != nil {
		return DeployerVerdict{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return DeployerVerdict{}, err
	}
	var policy map[string]any
	if err := json.Unmarshal(data, &policy); err != nil {
		return DeployerVerdict{}, fmt.Errorf("%s: %w", path, err)
	}
	names := sortedActionNames(actions)
	var requests []IAMRequest
	for i, a := range names {
		requests = append(requests, IAMRequest{ID: i, Action: a, Resource: "*", Context: deployerContext[a]})
	}
	results, err := Simulate(deployerPrincipal, []IAMPolicy{{Name: "deployer", Policy: policy}}, requests)
	if err != nil {
		return DeployerVerdict{}, err
	}
	v := DeployerVerdict{Denied: map[string][]string{}, OnlyBy: map[string][]string{}}
	for _, r := range results {
		a := names[r.ID]
		switch {
		case r.Result != "Allowed":
			v.Denied[a] = actions[a]
		case len(r.AllowedBy) == 1:
			sid := strings.TrimPrefix(r.AllowedBy[0], "deployer/")
			v.OnlyBy[sid] = append(v.OnlyBy[sid], a)
		}
	}
	return v, nil
}

// deployerContext are the condition keys AWS sets on an action, where the policy narrows it:
// the one service-linked role the component creates is EC2 Spot's (provider/children/access.go).
var deployerContext = map[string]map[string]any{
	"iam:CreateServiceLinkedRole": {"iam:AWSServiceName": "spot.amazonaws.com"},
}

// deployerPrincipal is the identity the check runs as: any IAM user or role of the account.
var deployerPrincipal = "arn:aws:iam::" + MotoAccount + ":user/deployer"

func sortedActionNames(m map[string][]string) []string {
	return slices.Sorted(maps.Keys(m))
}
