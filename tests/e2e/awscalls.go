package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// AWSCall is one request the Karpenter controller sent to AWS (moto), as the recorder saw it.
type AWSCall struct {
	Time    time.Time
	Service string // the SigV4 signing name: ec2, iam, sqs, eks, pricing, ssm, sts...
	Action  string // the API operation: CreateFleet, ReceiveMessage, DescribeCluster...
	// Params are the request's parameters: the form of a query-protocol call (EC2, IAM), the
	// JSON body of a JSON-protocol call (SQS, pricing, SSM), the path parameters of a REST call
	// (EKS), flattened to strings.
	Params url.Values
	JSON   map[string]any // the decoded body of a JSON-protocol call
	Status int            // moto's HTTP status
	DryRun bool
	// ResourceTags are the tags (and, for an instance profile, the ARN with its path) of the
	// existing resources the call acts on, read from moto just before it was forwarded: what IAM
	// evaluates aws:ResourceTag conditions against. Keyed by the resource's ARN.
	ResourceTags map[string]map[string]string
	// LaunchTemplates are the launch templates a CreateFleet or RunInstances used, as they were.
	LaunchTemplates []LaunchTemplateData
}

// LaunchTemplateData is what IAM looks at in a launch template a launch uses.
type LaunchTemplateData struct {
	ID, Name         string
	Tags             map[string]string
	SecurityGroupIDs []string
	ImageID          string
	InstanceProfile  string // its name; RoleArn is the role inside it
	RoleArn          string
	TagSpecs         map[string]map[string]string // resource type -> tags the template adds at launch
}

// IAMAction is the call's IAM action name (service prefix and operation): ec2:CreateFleet.
func (c AWSCall) IAMAction() string {
	prefix := c.Service
	if prefix == "monitoring" {
		prefix = "cloudwatch"
	}
	return prefix + ":" + c.Action
}

// AWSRecorder stands between the controller and moto (the controller's AWS_ENDPOINT_URL): it
// forwards every request and records the call, so the test can say which AWS calls Karpenter
// made and check each against the component's controller policies. It also makes up for two
// gaps of moto 5.2.5 that would otherwise send Karpenter down paths real AWS never takes (see
// fixups.go); each fix-up is recorded (FixUps).
type AWSRecorder struct {
	URL    string // http://127.0.0.1:<port>
	mu     sync.Mutex
	log    []AWSCall
	fixups []string
	srv    *http.Server
	moto   *motoClient
}

type callKey struct{}

// StartAWSRecorder listens on a free loopback port and forwards to moto at target; fix-ups talk
// to moto with cfg.
func StartAWSRecorder(target string, cfg aws.Config) (*AWSRecorder, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &AWSRecorder{URL: "http://" + l.Addr().String(), moto: newMotoClient(cfg)}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.Transport = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 32}
	proxy.ModifyResponse = func(resp *http.Response) error {
		c, _ := resp.Request.Context().Value(callKey{}).(*AWSCall)
		if c == nil || resp.StatusCode != http.StatusOK {
			return nil
		}
		return r.fixUp(resp, c)
	}
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		c := parseCall(req, body)
		r.preflight(req.Context(), c)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		proxy.ServeHTTP(rec, req.WithContext(context.WithValue(req.Context(), callKey{}, c)))
		c.Time, c.Status = time.Now(), rec.status
		r.mu.Lock()
		r.log = append(r.log, *c)
		r.mu.Unlock()
	})}
	go func() { _ = r.srv.Serve(l) }()
	return r, nil
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// Flush keeps long polls (SQS ReceiveMessage) streaming.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

var signingScope = regexp.MustCompile(`Credential=[^/]+/[0-9]+/[^/]+/([^/]+)/aws4_request`)

// eksRoutes are the EKS REST operations by method and path.
var eksRoutes = []struct {
	method string
	path   *regexp.Regexp
	action string
	params []string
}{
	{http.MethodGet, regexp.MustCompile(`^/clusters/([^/]+)$`), "DescribeCluster", []string{"name"}},
}

// parseCall reads which call a request is.
func parseCall(req *http.Request, body []byte) *AWSCall {
	c := &AWSCall{Params: url.Values{}}
	if m := signingScope.FindStringSubmatch(req.Header.Get("Authorization")); m != nil {
		c.Service = m[1]
	}
	switch target := req.Header.Get("X-Amz-Target"); {
	case target != "": // JSON protocols: AmazonSQS.ReceiveMessage, AWSPriceListService.GetProducts
		c.Action = target[strings.LastIndex(target, ".")+1:]
		_ = json.Unmarshal(body, &c.JSON)
		for k, v := range c.JSON {
			if s, ok := v.(string); ok {
				c.Params.Set(k, s)
			}
		}
	case strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded"):
		c.Params, _ = url.ParseQuery(string(body))
		c.Action = c.Params.Get("Action")
	default: // REST
		for _, route := range eksRoutes {
			if m := route.path.FindStringSubmatch(req.URL.Path); m != nil && req.Method == route.method && c.Service == "eks" {
				c.Action = route.action
				for i, p := range route.params {
					c.Params.Set(p, m[i+1])
				}
			}
		}
		if c.Action == "" {
			c.Action = req.Method + " " + req.URL.Path // unknown: the IAM check names it
		}
	}
	c.DryRun = c.Params.Get("DryRun") == "true"
	return c
}

// Calls are the calls recorded so far, in the order they completed.
func (r *AWSRecorder) Calls() []AWSCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]AWSCall(nil), r.log...)
}

// FixUps are the fix-ups made so far.
func (r *AWSRecorder) FixUps() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.fixups...)
}

// Close stops the recorder.
func (r *AWSRecorder) Close() {
	if r != nil && r.srv != nil {
		_ = r.srv.Close()
	}
}
