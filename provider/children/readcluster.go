package children

// Reading the cluster through the component's aws provider, for the plan's cluster checks
// (plan/cluster_checks.go). The cluster is read at construct, before any child is registered: for a
// cluster that exists that is the preview; for one the same update creates, its name is known
// only at `up` (the engine sends the component its inputs once they resolve), so the checks run
// there, still before any child.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// ClusterRead is what reading the cluster at construct gave: the cluster, a finding about
// clusterName, or why the checks wait (each empty when not).
type ClusterRead struct {
	Cluster *plan.Cluster
	Err     error
	Waits   string
}

// ReadCluster reads the EKS cluster the component installs into, when ref names one. A cluster
// that does not exist while its name comes from a resource of the program is one this update
// creates: at a preview the checks wait for `up`.
func ReadCluster(ctx *pulumi.Context, comp pulumi.Resource, ref plan.ClusterRef) ClusterRead {
	if ref.Name == "" {
		return ClusterRead{Err: ref.Err, Waits: ref.Waits}
	}
	name := ref.Name
	var result struct {
		AccessConfigs []struct {
			AuthenticationMode string `pulumi:"authenticationMode"`
		} `pulumi:"accessConfigs"`
		ComputeConfigs []struct {
			Enabled bool `pulumi:"enabled"`
		} `pulumi:"computeConfigs"`
		Endpoint   string `pulumi:"endpoint"`
		Identities []struct {
			Oidcs []struct {
				Issuer string `pulumi:"issuer"`
			} `pulumi:"oidcs"`
		} `pulumi:"identities"`
		Version   string `pulumi:"version"`
		VpcConfig struct {
			VpcID                  string `pulumi:"vpcId"`
			ClusterSecurityGroupID string `pulumi:"clusterSecurityGroupId"`
		} `pulumi:"vpcConfig"`
	}
	query := struct {
		Name string `pulumi:"name"`
	}{name}
	err := invoke(ctx, comp, InvokeCluster, query, &result)
	switch {
	case isNotFound(err) && ctx.DryRun() && ref.Created:
		return ClusterRead{Waits: fmt.Sprintf("cluster %s does not exist yet (this update creates it)", name)}
	case err != nil && runEnded(err):
		return ClusterRead{Err: fmt.Errorf("reading the EKS cluster: %w", err)} // not about the cluster
	case isNotFound(err):
		return ClusterRead{Err: field.Invalidf(field.NewPath("clusterName"), "no EKS cluster named %s exists where the aws provider looks (its account and region; eks:DescribeCluster); check the name and the provider passed to the component, or set readCluster: false to install without reading the cluster", name)}
	case err != nil:
		return ClusterRead{Err: field.Invalidf(field.NewPath("clusterName"), "could not read EKS cluster %s (%v); the checks against the cluster need eks:DescribeCluster (docs/behaviour.md, Checks against the cluster), or set readCluster: false", name, err)}
	}
	c := &plan.Cluster{Name: name, Version: result.Version, Endpoint: result.Endpoint, VpcID: result.VpcConfig.VpcID,
		SecurityGroupID: result.VpcConfig.ClusterSecurityGroupID}
	if len(result.AccessConfigs) > 0 {
		c.AuthenticationMode = inputs.AuthenticationMode(result.AccessConfigs[0].AuthenticationMode)
	}
	if c.AuthenticationMode == "" {
		// A cluster created before access entries existed: aws-auth only.
		c.AuthenticationMode = inputs.AuthenticationModeConfigMap
	}
	c.AutoMode = len(result.ComputeConfigs) > 0 && result.ComputeConfigs[0].Enabled
	if len(result.Identities) > 0 && len(result.Identities[0].Oidcs) > 0 {
		c.OIDCIssuer = result.Identities[0].Oidcs[0].Issuer
	}
	return ClusterRead{Cluster: c}
}

// CheckCluster checks the plan against what ReadCluster read, reading the rest through the
// component's aws provider: every problem, joined. What the checks warn of, and that they
// wait for the cluster, the plan says with its warnings.
func CheckCluster(ctx *pulumi.Context, comp pulumi.Resource, p *plan.Plan, read ClusterRead) error {
	switch {
	case !p.ReadCluster:
		return nil
	case read.Err != nil:
		return read.Err
	case read.Cluster == nil:
		p.WaitForCluster(read.Waits, ctx.DryRun())
		return nil
	}
	return p.CheckCluster(*read.Cluster, &awsReader{ctx: ctx, comp: comp}, ctx.DryRun())
}

// awsReader answers the plan's reads with the aws provider's functions, each query once.
type awsReader struct {
	ctx  *pulumi.Context
	comp pulumi.Resource
	mu   sync.Mutex
	memo map[string]*memoEntry
}

type memoEntry struct {
	once  sync.Once
	value any
	err   error
}

// once runs read for key the first time and answers its result every time.
func (r *awsReader) once(key string, read func() (any, error)) (any, error) {
	r.mu.Lock()
	if r.memo == nil {
		r.memo = map[string]*memoEntry{}
	}
	e, ok := r.memo[key]
	if !ok {
		e = &memoEntry{}
		r.memo[key] = e
	}
	r.mu.Unlock()
	e.once.Do(func() { e.value, e.err = read() })
	return e.value, e.err
}

func (r *awsReader) invoke(token string, args, result any) error {
	return invoke(r.ctx, r.comp, token, args, result)
}

func (r *awsReader) OIDCProvider(arn string) (plan.OIDCProvider, error) {
	var result struct {
		URL           string   `pulumi:"url"`
		ClientIDLists []string `pulumi:"clientIdLists"`
	}
	args := struct {
		Arn string `pulumi:"arn"`
	}{arn}
	if err := r.invoke(InvokeOIDCProvider, args, &result); err != nil {
		return plan.OIDCProvider{}, notFound(err)
	}
	return plan.OIDCProvider{URL: result.URL, ClientIDs: result.ClientIDLists}, nil
}

// filterArgs are EC2 filters as the aws provider's functions take them.
type filterArg struct {
	Name   string   `pulumi:"name"`
	Values []string `pulumi:"values"`
}

func filterArgs(filters []plan.Filter) []filterArg {
	out := make([]filterArg, len(filters))
	for i, f := range filters {
		out[i] = filterArg{Name: f.Name, Values: f.Values}
	}
	return out
}

func filterKey(filters []plan.Filter) string {
	var parts []string
	for _, f := range filters {
		parts = append(parts, f.Name+"="+strings.Join(f.Values, ","))
	}
	return strings.Join(parts, ";")
}

// Subnets are the subnets the filters match, with their VPC and zone (getSubnets answers ids
// only: each is read with getSubnet, concurrently).
func (r *awsReader) Subnets(filters []plan.Filter) ([]plan.Subnet, error) {
	ids, err := r.once("subnets:"+filterKey(filters), func() (any, error) {
		var result struct {
			Ids []string `pulumi:"ids"`
		}
		args := struct {
			Filters []filterArg `pulumi:"filters"`
		}{filterArgs(filters)}
		return result.Ids, r.invoke(InvokeSubnets, args, &result)
	})
	if err != nil {
		return nil, err
	}
	subnets := make([]plan.Subnet, len(ids.([]string)))
	errs := make([]error, len(subnets))
	var wg sync.WaitGroup
	for i, id := range ids.([]string) {
		wg.Go(func() { subnets[i], errs[i] = r.subnet(id) })
	}
	wg.Wait()
	return subnets, errors.Join(errs...)
}

func (r *awsReader) subnet(id string) (plan.Subnet, error) {
	s, err := r.once("subnet:"+id, func() (any, error) {
		var result struct {
			VpcID            string `pulumi:"vpcId"`
			AvailabilityZone string `pulumi:"availabilityZone"`
		}
		args := struct {
			Id string `pulumi:"id"`
		}{id}
		err := r.invoke(InvokeSubnet, args, &result)
		return plan.Subnet{ID: id, VpcID: result.VpcID, Zone: result.AvailabilityZone}, err
	})
	return s.(plan.Subnet), err
}

func (r *awsReader) SecurityGroups(filters []plan.Filter) ([]plan.SecurityGroup, error) {
	groups, err := r.once("security-groups:"+filterKey(filters), func() (any, error) {
		var result struct {
			Ids    []string `pulumi:"ids"`
			VpcIds []string `pulumi:"vpcIds"`
		}
		args := struct {
			Filters []filterArg `pulumi:"filters"`
		}{filterArgs(filters)}
		if err := r.invoke(InvokeSecurityGroups, args, &result); err != nil {
			return nil, err
		}
		out := make([]plan.SecurityGroup, len(result.Ids))
		for i, id := range result.Ids {
			out[i] = plan.SecurityGroup{ID: id}
			if i < len(result.VpcIds) {
				out[i].VpcID = result.VpcIds[i]
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return groups.([]plan.SecurityGroup), nil
}

func (r *awsReader) ParameterExists(name string) (bool, error) {
	exists, err := r.once("parameter:"+name, func() (any, error) {
		var result struct {
			// The value is what Karpenter resolves; reading `type` is enough to know it exists.
			Type string `pulumi:"type"`
		}
		args := struct {
			Name string `pulumi:"name"`
		}{name}
		return existence(r.invoke(InvokeParameter, args, &result))
	})
	return exists.(bool), err
}

func (r *awsReader) RoleExists(name string) (bool, error) {
	role, err := r.Role(name)
	return role.Exists, err
}

// Role reads the IAM role name: whether it exists, its ARN and its description.
func (r *awsReader) Role(name string) (plan.IAMRead, error) {
	role, err := r.once("role:"+name, func() (any, error) {
		var result struct {
			Arn         string `pulumi:"arn"`
			Description string `pulumi:"description"`
		}
		args := struct {
			Name string `pulumi:"name"`
		}{name}
		exists, err := existence(r.invoke(InvokeRole, args, &result))
		return plan.IAMRead{Exists: exists, Arn: result.Arn, Description: result.Description}, err
	})
	return role.(plan.IAMRead), err
}

// The reads of an adoption (plan.InstallReader): whether each part of the running install exists.

// Policy reads the customer managed policy name: at arn first (the name under path "/", where the
// getting-started template and terraform-aws-modules make it: one GetPolicy), else by name
// (getPolicy by name lists every policy of the account, pages of them: a policy under another path
// is found only that way). The ARN read has the path it was created under.
func (r *awsReader) Policy(name, arn string) (plan.IAMRead, error) {
	var result struct {
		Arn         string `pulumi:"arn"`
		Description string `pulumi:"description"`
	}
	exists, err := existence(r.invoke(InvokePolicy, struct {
		Arn string `pulumi:"arn"`
	}{arn}, &result))
	if err == nil && !exists {
		exists, err = existence(r.invoke(InvokePolicy, struct {
			Name string `pulumi:"name"`
		}{name}, &result))
	}
	return plan.IAMRead{Exists: exists, Arn: result.Arn, Description: result.Description}, err
}

func (r *awsReader) InstanceProfileExists(name string) (bool, error) {
	return r.exists(InvokeInstanceProfile, struct {
		Name string `pulumi:"name"`
	}{name})
}

func (r *awsReader) QueueExists(name string) (bool, error) {
	return r.exists(InvokeQueue, struct {
		Name string `pulumi:"name"`
	}{name})
}

func (r *awsReader) AccessEntry(cluster, principalArn string) (plan.AccessEntryRead, error) {
	// The entry's tags: `tags` (pulumi-aws v7; v6 may leave it empty), else `tagsAll` (v6;
	// deprecated in v7).
	var result struct {
		ID      string            `pulumi:"id"`
		Type    string            `pulumi:"type"`
		Tags    map[string]string `pulumi:"tags"`
		TagsAll map[string]string `pulumi:"tagsAll"`
	}
	exists, err := existence(r.invoke(InvokeAccessEntry, struct {
		ClusterName  string `pulumi:"clusterName"`
		PrincipalArn string `pulumi:"principalArn"`
	}{cluster, principalArn}, &result))
	tags := result.Tags
	if len(tags) == 0 {
		tags = result.TagsAll
	}
	return plan.AccessEntryRead{Exists: exists, Type: result.Type, Tags: tags}, err
}

func (r *awsReader) AddonExists(cluster, addon string) (bool, error) {
	return r.exists(invokeAddon, struct {
		AddonName   string `pulumi:"addonName"`
		ClusterName string `pulumi:"clusterName"`
	}{addon, cluster})
}

// exists reads what args name with token and says whether it exists (every pulumi-aws function
// answers an id).
func (r *awsReader) exists(token string, args any) (bool, error) {
	var result struct {
		ID string `pulumi:"id"`
	}
	return existence(r.invoke(token, args, &result))
}

// existence turns a read's error into whether the thing exists.
func existence(err error) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case isNotFound(err):
		return false, nil
	}
	return false, err
}

// notFound is err, as plan.ErrNotFound when it says the thing does not exist.
func notFound(err error) error {
	if isNotFound(err) {
		return plan.ErrNotFound
	}
	return err
}

// notFoundPattern matches how pulumi-aws (terraform's data sources) reports a read of something
// that does not exist: "couldn't find resource" (tfresource.NotFound), or the service's own
// not-found error (ResourceNotFoundException, NoSuchEntity, ParameterNotFound, InvalidSubnetID.NotFound,
// and SQS's AWS.SimpleQueueService.NonExistentQueue, QueueDoesNotExist in its JSON protocol).
var notFoundPattern = regexp.MustCompile(`couldn't find resource|ResourceNotFoundException|NoSuchEntity|ParameterNotFound|\.NotFound|no matching .* found|NonExistentQueue|QueueDoesNotExist`)

// runEnded says whether a read failed because the engine ended the run (another step failed),
// which says nothing about the cluster.
func runEnded(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "context canceled") || strings.Contains(msg, "code = Canceled") ||
		strings.Contains(msg, "the client connection is closing")
}

func isNotFound(err error) bool {
	return err != nil && notFoundPattern.MatchString(err.Error())
}

// invoke calls a provider function through comp's providers, noting under render which result
// fields the component reads (provider/render/invokes.go).
func invoke(ctx *pulumi.Context, comp pulumi.Resource, token string, args, result any) error {
	if rec := recorderFrom(ctx.Context()); rec != nil {
		rec.RecordReads(token, result)
	}
	return ctx.Invoke(token, args, result, pulumi.Parent(comp), pulumi.Version(AWSVersion))
}
