module github.com/ratelimit-lab/ratelimit-lab/algorithms/conformance

go 1.26.0

require github.com/ratelimit-lab/ratelimit-lab v0.0.0

require (
	github.com/alibaba/sentinel-golang v1.0.4
	github.com/google/uuid v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
)

replace github.com/ratelimit-lab/ratelimit-lab => ../..
