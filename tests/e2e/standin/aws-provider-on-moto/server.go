package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/pulumi/pulumi/sdk/v3/go/common/diag"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// provider implements the resource provider protocol (pulumirpc.ResourceProviderServer).
type provider struct {
	pulumirpc.UnimplementedResourceProviderServer

	env  settings
	ops  *opLog
	eks  *eksStore
	mu   sync.Mutex
	host *pprovider.HostClient
	aws  *awsClients // set by Configure
	acct string      // the caller's account, read once from STS
}

// awsClients are the service clients, all pointed at moto.
type awsClients struct {
	region string
	iam    *iam.Client
	sqs    *sqs.Client
	events *eventbridge.Client
	sts    *sts.Client
	eks    *eks.Client
	ec2    *ec2Query
	ssm    *jsonRPC
}

func newProvider(host *pprovider.HostClient, env settings) *provider {
	return &provider{env: env, host: host, ops: &opLog{path: env.logPath}, eks: newEKSStore(env.stateDir)}
}

func (p *provider) clients() (*awsClients, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.aws == nil {
		return nil, errors.New("the aws provider is not configured yet (Configure was not called)")
	}
	return p.aws, nil
}

func (p *provider) configure(region string) {
	creds := credentials.NewStaticCredentialsProvider(p.env.accessKey, p.env.secretKey, p.env.sessionToken)
	cfg := aws.Config{
		Region:           region,
		Credentials:      creds,
		BaseEndpoint:     aws.String(p.env.endpoint),
		RetryMaxAttempts: 3,
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.aws = &awsClients{
		region: region,
		iam:    iam.NewFromConfig(cfg),
		sqs:    sqs.NewFromConfig(cfg),
		events: eventbridge.NewFromConfig(cfg),
		sts:    sts.NewFromConfig(cfg),
		eks:    eks.NewFromConfig(cfg),
		ec2:    &ec2Query{endpoint: p.env.endpoint, region: region, creds: creds, http: http.DefaultClient, signer: v4.NewSigner()},
		ssm: &jsonRPC{endpoint: p.env.endpoint, region: region, creds: creds, http: http.DefaultClient, signer: v4.NewSigner(),
			service: "ssm", target: "AmazonSSM", label: "SSM"},
	}
	p.acct = ""
}

// call is one resource operation: what the type's ops need besides their arguments.
type call struct {
	p      *provider
	urn    resource.URN
	typ    *rtype
	inputs pmap // the resource's inputs (for Delete: the old inputs)
}

func (c *call) aws() *awsClients {
	cl, err := c.p.clients()
	if err != nil {
		panic(err) // ops run only after the server checked that the provider is configured
	}
	return cl
}

func (c *call) region() string { return c.aws().region }

func (c *call) partition() string {
	p, _, _ := partitionOf(c.region())
	return p
}

func (c *call) account(ctx context.Context) string {
	c.p.mu.Lock()
	acct := c.p.acct
	c.p.mu.Unlock()
	if acct != "" {
		return acct
	}
	out, err := c.aws().sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "123456789012"
	}
	c.p.mu.Lock()
	c.p.acct = aws.ToString(out.Account)
	c.p.mu.Unlock()
	return aws.ToString(out.Account)
}

// inMemory tells the engine's output (and stderr) that the object lives in the stand-in's
// record, not in moto.
func (c *call) inMemory(ctx context.Context, verb string) {
	msg := fmt.Sprintf("%s %s %s recorded in memory: %s (%s)", verb, c.typ.token, c.urn.Name(), c.typ.inMemory, standIn)
	logf("%s", msg)
	if c.p.host != nil {
		_ = c.p.host.Log(ctx, diag.Info, c.urn, msg)
	}
}

var unmarshalOpts = plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, SkipNulls: true}

func unmarshal(s *structpb.Struct) (pmap, error) {
	if s == nil {
		return pmap{}, nil
	}
	return plugin.UnmarshalProperties(s, unmarshalOpts)
}

func marshal(m pmap) (*structpb.Struct, error) {
	return plugin.MarshalProperties(m, plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true})
}

func (p *provider) typeOf(urn string) (*rtype, error) {
	tok := string(resource.URN(urn).Type())
	t, ok := types[tok]
	if !ok {
		return nil, fmt.Errorf("unknown resource type %q: the %s serves only %s", tok, standIn, strings.Join(sortedKeys(types), ", "))
	}
	return t, nil
}

// ---- plugin and configuration -------------------------------------------------------------

func (p *provider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: pluginInfoVersion}, nil
}

func (p *provider) GetSchema(_ context.Context, req *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	s, err := schemaJSON()
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetSchemaResponse{Schema: s}, nil
}

func (p *provider) Attach(_ context.Context, req *pulumirpc.PluginAttach) (*emptypb.Empty, error) {
	host, err := pprovider.NewHostClient(req.GetAddress())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.host = host
	p.mu.Unlock()
	return &emptypb.Empty{}, nil
}

func (p *provider) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// CheckConfig accepts pulumi-aws's configuration; the stand-in uses `region` (else AWS_REGION)
// and refuses the keys that would point it anywhere but moto.
func (p *provider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	var failures []*pulumirpc.CheckFailure
	if r := news["region"]; !r.IsNull() && !unknown(r) && !plain(r).IsString() {
		failures = append(failures, failure("region", "region must be a string"))
	}
	if !has(news, "region") && p.env.region == "" {
		failures = append(failures, failure("region", "missing region: set the aws:region configuration or AWS_REGION (%s)", standIn))
	}
	for _, k := range []string{"endpoints", "profile", "sharedCredentialsFiles", "assumeRole", "assumeRoleWithWebIdentity"} {
		if has(news, k) {
			failures = append(failures, failure(k, "aws:%s is not supported by the %s: it talks only to moto at AWS_ENDPOINT_URL", k, standIn))
		}
	}
	ins, err := marshal(news)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CheckResponse{Inputs: ins, Failures: failures}, nil
}

func (p *provider) DiffConfig(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	olds, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	if len(olds) == 0 {
		if olds, err = unmarshal(req.GetOlds()); err != nil {
			return nil, err
		}
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}
	for _, k := range unionKeys(olds, news) {
		if k == "version" {
			continue
		}
		if !olds[resource.PropertyKey(k)].DeepEquals(news[resource.PropertyKey(k)]) || unknown(news[resource.PropertyKey(k)]) {
			resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
			resp.Diffs = append(resp.Diffs, k)
		}
	}
	return resp, nil
}

func (p *provider) Configure(_ context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	region := p.env.region
	if v, ok := req.GetVariables()["aws:config:region"]; ok && v != "" {
		region = v
	}
	if args, err := unmarshal(req.GetArgs()); err == nil && str(args, "region") != "" {
		region = str(args, "region")
	}
	if region == "" {
		return nil, fmt.Errorf("missing region: set the aws:region configuration or AWS_REGION (%s)", standIn)
	}
	p.configure(region)
	logf("configured: region %s, moto at %s", region, p.env.endpoint)
	return &pulumirpc.ConfigureResponse{
		AcceptSecrets:                   false, // the engine strips secrets before they reach the stand-in
		AcceptResources:                 false,
		SupportsPreview:                 true,
		SupportsAutonamingConfiguration: true,
	}, nil
}

// ---- Invoke -------------------------------------------------------------------------------

func (p *provider) Invoke(ctx context.Context, req *pulumirpc.InvokeRequest) (*pulumirpc.InvokeResponse, error) {
	fn, ok := invokes[req.GetTok()]
	if !ok {
		return nil, fmt.Errorf("unknown function %q: the %s serves only %s", req.GetTok(), standIn, strings.Join(sortedKeys(invokes), ", "))
	}
	args, err := unmarshal(req.GetArgs())
	if err != nil {
		return nil, err
	}
	out, err := fn(ctx, p, args)
	if err != nil {
		logf("Invoke %s failed: %v", req.GetTok(), err)
		return nil, err
	}
	p.ops.write("Invoke", req.GetTok(), "", "", givenKeys(args))
	ret, err := marshal(out)
	return &pulumirpc.InvokeResponse{Return: ret}, err
}
