// The curated vocabulary of technologies, patterns and tools that capture recognizes as entities.
// One line per entry: `canonical|category|alias,alias...`, under its kind. Any name may carry flags:
//   !c  also an English word: matched only when written with a capital (Go, Swift, Vault)
//   !u  an acronym that is also a word: matched only in capitals (REST, SPA, RAG)
//   !v  also a verb: not matched when a particle or an object follows ("go with", "react to",
//       "make sure")
//   !t  not matched before "to" ("react to changes")
//   !n  a common word that names the thing only beside a version ("pin Next to 14.2", "Next 15"),
//       never in "the next release"; kept out of statement fingerprints and recall's concepts
// Any name whose alias fails its flags (!c, !v, !t) still counts beside a version the same way
// ("bump go to 1.22", "upgrade Express to 5", "spring 6.1"): entities.ts versionBeside().
// Aliases are matched on whole tokens (word boundaries), case-insensitively; multi-word aliases
// match across spaces and hyphens ("cursor-based pagination"). The canonical name is what a
// memory stores: lowercase, hyphenated.

export type EntityKind = "technology" | "pattern" | "tool";

export interface VocabAlias {
  /** As written in the table, lowercase. */
  text: string;
  /** Also an English word: only matched when written with a capital. */
  needsCapital: boolean;
  /** An acronym that is also a word (REST, SPA): only matched in capitals. */
  upper: boolean;
  /** Also a verb: not matched when a particle or an object follows. */
  verbLike: boolean;
  /** Not matched before "to" ("react to"). */
  notBeforeTo: boolean;
  /** A common word: a name only beside a version ("next" -> next.js in "bump next to 15"). */
  versionOnly: boolean;
}

export interface VocabEntry {
  name: string;
  kind: EntityKind;
  category: string;
  aliases: VocabAlias[];
}

const T = "technology";
const P = "pattern";
const L = "tool";

// prettier-ignore
const TABLE: Record<string, string[]> = {
  [T]: [
    // databases
    "postgresql|database|postgres,pg,psql,postgre,postgresql 16,postgres 16",
    "mysql|database|my sql",
    "mariadb|database",
    "sqlite|database|sqlite3",
    "mongodb|database|mongo",
    "dynamodb|database|dynamo db,dynamo",
    "cassandra|database|apache cassandra",
    "scylladb|database|scylla",
    "cockroachdb|database|cockroach db,cockroach",
    "neo4j|database",
    "redis|cache|redis cluster",
    "memcached|cache|memcache",
    "valkey|cache",
    "dragonfly|cache|dragonflydb",
    "supabase|database",
    "firebase|database",
    "firestore|database|cloud firestore",
    "planetscale|database",
    "neon!c|database|neon postgres",
    "timescaledb|database|timescale",
    "influxdb|database|influx",
    "clickhouse|database|click house",
    "snowflake!c|data|snowflake db",
    "bigquery|data|big query",
    "redshift|data|aws redshift,amazon redshift",
    "databricks|data",
    "duckdb|database|duck db",
    "trino|data",
    "presto!c|data|prestodb",
    "oracle!c|database|oracle database,oracle db",
    "sql server|database|mssql,ms sql,microsoft sql server,sqlserver",
    "couchdb|database|couch db",
    "couchbase|database",
    "rethinkdb|database",
    "surrealdb|database",
    "etcd|database",
    "pinecone!c|vector-db|pinecone db",
    "weaviate|vector-db",
    "qdrant|vector-db",
    "milvus|vector-db",
    "chroma!c|vector-db|chromadb",
    "pgvector|vector-db|pg vector,pg_vector",
    "faiss|vector-db",
    "lancedb|vector-db",
    "elasticsearch|search|elastic search",
    "opensearch|search|open search",
    "solr|search|apache solr",
    "meilisearch|search|meili",
    "typesense|search",
    "algolia|search",
    "jsonb|database|json b",
    "hstore|database",
    // messaging and jobs
    "kafka|messaging|apache kafka",
    "ably!c|messaging",
    "pusher!c|messaging",
    "rabbitmq|messaging|rabbit mq",
    "nats!c|messaging|nats.io,nats jetstream",
    "sqs|messaging|amazon sqs,aws sqs",
    "sns|messaging|amazon sns,aws sns",
    "kinesis|messaging|aws kinesis",
    "google pub/sub|messaging|gcp pubsub,cloud pub/sub,google pubsub",
    "pulsar!c|messaging|apache pulsar",
    "zeromq|messaging|zmq,0mq",
    "mqtt|messaging",
    "celery|jobs",
    "sidekiq|jobs",
    "bullmq|jobs|bull mq",
    "temporal!c|jobs|temporal.io",
    "airflow|data|apache airflow",
    "dagster|data",
    "prefect!c|data",
    "dbt|data|data build tool",
    "spark!c!v|data|apache spark,pyspark",
    "flink|data|apache flink",
    "hadoop|data",
    "parquet|data|apache parquet",
    "avro|data|apache avro",
    "iceberg!c|data|apache iceberg",
    "delta lake|data",
    // languages and runtimes
    "typescript|language|ts",
    "javascript|language|js,ecmascript",
    "python|language|py,python3",
    "java|language|jdk,openjdk",
    "kotlin|language",
    "scala|language",
    "go!c!v|language|golang",
    "rust|language|rustlang",
    "c++|language|cpp,cplusplus",
    "c#|language|csharp,c sharp",
    "f#|language|fsharp",
    "ruby|language",
    "php|language",
    "perl|language",
    "swift!c|language",
    "objective-c|language|objc,obj-c",
    "elixir|language",
    "erlang|language",
    "haskell|language",
    "ocaml|language",
    "clojure|language",
    "lua|language",
    "julia!c|language",
    "dart!c|language",
    "zig|language",
    "nim!c|language",
    "bash|language|shell script,shell scripts",
    "powershell|language",
    "sql|language",
    "webassembly|language|wasm",
    "solidity|language",
    "html|language|html5",
    "coffeescript|language|coffee script",
    "css|language|css3",
    "node.js|runtime|node!c,nodejs,node js",
    "deno|runtime",
    "bun|runtime|bun.js,bunjs",
    "jvm|runtime",
    ".net|runtime|dotnet,.net core,dotnet core",
    "graalvm|runtime|graal",
    "var|language",
    "const|language",
    "async/await|language|async await",
    "esm|language|es modules,ecmascript modules,es module,ecmascript module,es6 modules,es6 module,es imports,es import",
    "commonjs|language|cjs,common js",
    "type hints|language|type annotations",
    "strict mode|language|typescript strict mode,strict typescript",
    // frontend
    "react!t|frontend|reactjs,react.js,react js",
    "vue|frontend|vue.js,vuejs,vue 3,vue3",
    "angular!c|frontend|angularjs,angular.js",
    "svelte|frontend",
    "sveltekit|frontend|svelte kit",
    "next.js|frontend|nextjs,next js,next!n",
    "nuxt|frontend|nuxt.js,nuxtjs",
    "remix!c!v|frontend|remix.run",
    "astro!c|frontend",
    "solidjs|frontend|solid.js,solid js",
    "preact|frontend",
    "qwik|frontend",
    "gatsby!c|frontend|gatsbyjs",
    "ember!c|frontend|ember.js,emberjs",
    "jquery|frontend",
    "htmx|frontend",
    "alpine.js|frontend|alpinejs",
    "tailwind css|styling|tailwind,tailwindcss",
    "bootstrap!c|styling",
    "styled-components|styling|styled components",
    "css modules|styling",
    "sass|styling|scss",
    "shadcn/ui|styling|shadcn,shadcn ui",
    "material ui|styling|mui,material-ui",
    "chakra ui|styling|chakra",
    "redux|state|redux toolkit,rtk",
    "rtk query|state|redux toolkit query",
    "zustand|state",
    "mobx|state",
    "jotai|state",
    "recoil!c|state",
    "tanstack query|state|react query,react-query,tanstack/query",
    "swr|state",
    "apollo!c|api|apollo client,apollo server",
    "relay!c!v|api",
    "react native|mobile|react-native,rn!u",
    // payment processors (branch quality6: named in tune6's prompts, absent before). Android and
    // iOS were tried too: capture's entities gained, but recall read them as products of the
    // mobile kind and tune's paraphrase MRR fell 0.01: left out
    "stripe|payments|stripe checkout,stripe connect,stripe billing",
    "paypal|payments",
    "adyen|payments",
    "braintree|payments",
    "paddle!c|payments",
    // email and push delivery services (branch quality6: named in tune6's queries, absent before)
    "postmark!c|email",
    "sendgrid|email|send grid",
    "react email|email|react-email",
    "mailgun|email",
    "mailchimp|email",
    "amazon ses|email|aws ses,ses!u",
    "firebase cloud messaging|push|fcm",
    "apns|push|apple push notification service",
    "flutter|mobile",
    "expo!c|mobile",
    "ionic|mobile",
    "electron!c|desktop|electronjs",
    "tauri|desktop",
    "three.js|frontend|threejs",
    "d3.js|frontend|d3,d3js",
    "webpack|build",
    "vite|build|vitejs",
    "create react app|build|cra!u,create-react-app",
    "rollup|build|rollup.js",
    "esbuild|build",
    "swc|build",
    "babel!c|build|babeljs",
    "turbopack|build",
    "parcel!c|build",
    // backend frameworks
    "express!c!v|backend|express.js,expressjs",
    "fastify|backend",
    "koa!c|backend|koa.js",
    "hono|backend",
    "nestjs|backend|nest.js,nest js",
    "django|backend",
    "flask|backend",
    "fastapi|backend|fast api",
    "starlette|backend",
    "pydantic|backend",
    "rails!c|backend|ruby on rails,ror",
    "sinatra!c|backend",
    "laravel|backend",
    "symfony|backend",
    "spring boot|backend|springboot",
    "spring!c|backend|spring framework",
    "quarkus|backend",
    "micronaut|backend",
    "asp.net core|backend|asp.net,aspnet,aspnetcore",
    "gin!c|backend|gin-gonic",
    "echo!c!v|backend|labstack echo",
    "fiber!c|backend|gofiber",
    "actix|backend|actix-web",
    "axum|backend",
    "rocket!c|backend",
    "phoenix!c|backend|phoenix framework",
    "ktor|backend",
    "trpc|api",
    "graphql|api|graph ql,gql",
    "grpc|api|g rpc",
    "rest!u|api|restful,rest api,rest apis,restful api",
    "websockets|api|websocket,web sockets",
    "server-sent events|api|sse,server sent events",
    "openapi|api|swagger,open api",
    "protobuf|api|protocol buffers,protobufs",
    "json schema|api",
    "msgpack|api|messagepack",
    "webhooks|api|webhook",
    "http/2|networking|http2",
    "http/3|networking|http3,quic",
    "tcp|networking",
    "udp|networking",
    "dns|networking",
    // orms
    "prisma|orm",
    "drizzle!c|orm|drizzle orm",
    "typeorm|orm",
    "sequelize|orm",
    "knex|orm|knex.js",
    "kysely|orm",
    "sqlalchemy|orm|sql alchemy",
    "alembic|orm",
    "activerecord|orm|active record",
    "hibernate!c|orm",
    "entity framework|orm|ef core,entity framework core",
    "gorm|orm",
    "diesel!c|orm",
    "mongoose|orm",
    // infrastructure and cloud
    "docker|infrastructure|dockerfile,docker containers",
    "docker compose|infrastructure|docker-compose,compose file",
    "docker hub|infrastructure|dockerhub",
    "podman|infrastructure",
    "kubernetes|infrastructure|k8s,kube",
    "helm|infrastructure|helm chart,helm charts",
    "istio|infrastructure",
    "envoy!c|infrastructure|envoy proxy",
    "linkerd|infrastructure",
    "nginx|infrastructure",
    "caddy!c|infrastructure",
    "traefik|infrastructure",
    "karpenter|infrastructure",
    "kong!c|infrastructure|kong gateway",
    "tyk!c|infrastructure",
    "systemd|infrastructure",
    "haproxy|infrastructure|ha proxy",
    "terraform|iac|tf",
    "opentofu|iac",
    "pulumi|iac",
    "ansible|iac",
    "cloudformation|iac|cloud formation",
    "aws cdk|iac|cdk",
    "vault!c|security|hashicorp vault",
    "tailscale|security|tailnet",
    "consul!c|infrastructure|hashicorp consul",
    "aws|cloud|amazon web services",
    "aws sdk|cloud|aws-sdk,aws sdk v2,aws sdk v3",
    "aws ssm|cloud|ssm!u,ssm parameter store,aws parameter store,parameter store",
    "gcp|cloud|google cloud,google cloud platform",
    "azure|cloud|microsoft azure",
    "aws lambda|cloud|lambda functions,lambda!c,lambdas!c",
    "s3|cloud|amazon s3,aws s3",
    "ec2|cloud|aws ec2",
    "ecs|cloud|aws ecs",
    "eks|cloud|aws eks",
    "fargate|cloud|aws fargate",
    "rds|cloud|aws rds,amazon rds",
    "aurora!c|cloud|aws aurora,amazon aurora",
    "cloudfront|cloud",
    "cloudflare|cloud",
    "cloudflare workers|cloud|workers kv",
    "vercel|cloud",
    "netlify|cloud",
    "fly.io|cloud|flyio",
    "heroku|cloud",
    "digitalocean|cloud|digital ocean",
    "hetzner|cloud",
    "cloud run|cloud|google cloud run",
    "aws step functions|cloud|step functions",
    "graviton|cloud|aws graviton",
    "imgix|cloud",
    // observability
    "prometheus|observability",
    "grafana|observability",
    "datadog|observability",
    "sentry!c|observability",
    "new relic|observability|newrelic",
    "opentelemetry|observability|otel,open telemetry",
    "jaeger!c|observability",
    "zipkin|observability",
    "loki!c|observability|grafana loki",
    "kibana|observability",
    "logstash|observability",
    "fluentd|observability|fluent bit,fluentbit",
    "splunk|observability",
    "pagerduty|observability|pager duty",
    // auth and security
    "jwt|auth|jwts,json web token,json web tokens,jwt tokens",
    "oauth|auth|oauth2,oauth 2.0,oauth2.0",
    "openid connect|auth|oidc",
    "saml|auth",
    "session cookies|auth|session-cookies,session cookie,cookie sessions",
    "auth0|auth",
    "okta|auth",
    "keycloak|auth",
    "clerk!c|auth",
    "auth.js|auth|nextauth,next-auth",
    "passport.js|auth|passportjs",
    "cognito|auth|aws cognito",
    "ldap|auth",
    "bcrypt|security",
    "argon2|security|argon2id",
    "scrypt|security",
    "mfa|auth|2fa,two-factor authentication,multi-factor authentication",
    "webauthn|auth|passkeys,passkey",
    "rbac|auth|role-based access control",
    "cors|security",
    "csrf|security|csrf tokens",
    "tls|security|ssl,mtls,mutual tls",
    "sql injection|security|sqli",
    "xss|security|cross-site scripting",
    "prepared statements|security|parameterized queries,prepared statement",
    // testing
    "jest|testing",
    "vitest|testing",
    "mocha!c|testing",
    "chai!c|testing",
    "jasmine!c|testing",
    "cypress!c|testing",
    "playwright|testing",
    "puppeteer|testing",
    "selenium|testing",
    "pytest|testing|py.test",
    "unittest|testing",
    "junit|testing|junit5",
    "rspec|testing",
    "phpunit|testing",
    "testing library|testing|react testing library,@testing-library",
    "storybook|testing",
    "k6|testing",
    "locust!c|testing",
    "jmeter|testing",
    "hypothesis!c|testing",
    "fast-check|testing",
    // ai
    "openai|ai|open ai",
    "anthropic|ai",
    "claude!c|ai|claude api",
    "gpt-4|ai|gpt4,gpt-4o,gpt",
    "langchain|ai|lang chain",
    "llamaindex|ai|llama index",
    "hugging face|ai|huggingface,hf transformers",
    "pytorch|ai",
    "tensorflow|ai|tf2",
    "jax!c|ai",
    "scikit-learn|ai|sklearn",
    "numpy|data",
    "pandas|data",
    "polars|data",
    "jupyter|data|jupyter notebook,jupyter notebooks",
    "mlflow|ai",
    "ollama|ai",
    "vllm|ai",
    "llm|ai|llms,large language model,large language models",
    "embeddings|ai|embedding,vector embeddings",
    "rag!u|ai|retrieval-augmented generation,retrieval augmented generation",
    // libraries
    "zod|validation",
    "yup|validation",
    "joi|validation",
    "valibot|validation",
    "ajv|validation",
    "date-fns|library|datefns",
    "moment.js|library|moment!c,momentjs",
    "dayjs|library|day.js",
    "luxon|library",
    "lodash|library|underscore.js",
    "sharp!c|library",
    "handlebars!c|library|handlebars.js",
    "mixpanel|analytics",
    "axios|library",
    "socket.io|library|socketio",
    "rxjs|library",
    "immer|library",
    "react hook form|frontend|react-hook-form",
    "winston!c|observability",
    "pino|observability",
    "pm2|runtime",
    "uvicorn|backend",
    "gunicorn|backend",
    "httpx|library",
    "aiohttp|backend",
    "tokio|runtime",
    "serde|library",
    "sqlx|orm",
    "hazelcast|cache",
    "ehcache|cache",
    "caffeine!c|cache",
    // formats and misc
    "json|data",
    "yaml|data|yml",
    "toml|data",
    "csv|data",
    "uuid|data|uuids,uuidv4,uuid v4",
    "uuidv7|data|uuid v7,uuid7",
    "utf-8|data|utf8",
  ],
  [P]: [
    "cursor-pagination|api|cursor-based pagination,cursor pagination,keyset pagination,cursor based pagination,seek pagination",
    "offset-pagination|api|offset-based pagination,offset pagination,limit/offset,limit offset pagination,offset based pagination",
    "microservices|architecture|microservice,micro-services,microservice architecture",
    "monolith|architecture|modular monolith,monolithic architecture",
    "event-sourcing|architecture|event sourcing",
    "cqrs|architecture|command query responsibility segregation",
    "saga|architecture|saga pattern,sagas",
    "outbox-pattern|architecture|outbox pattern,transactional outbox",
    "circuit-breaker|resilience|circuit breaker,circuit breakers",
    "exponential-backoff|resilience|exponential backoff,retry with backoff,backoff",
    "rate-limiting|resilience|rate limiting,rate limiter,rate limits,throttling",
    "idempotency-keys|api|idempotency keys,idempotency key,idempotency",
    "dependency-injection|architecture|dependency injection,di container",
    "repository-pattern|architecture|repository pattern",
    "unit-of-work|architecture|unit of work",
    "hexagonal-architecture|architecture|hexagonal architecture,ports and adapters",
    "clean-architecture|architecture|clean architecture",
    "domain-driven-design|architecture|domain-driven design,domain driven design,ddd!u",
    "mvc|architecture|model-view-controller",
    "mvvm|architecture",
    "singleton|architecture|singletons,singleton pattern",
    "factory-pattern|architecture|factory pattern,factories",
    "observer-pattern|architecture|observer pattern",
    "pub/sub|messaging|pubsub,publish-subscribe,publish/subscribe",
    "event-driven-architecture|architecture|event-driven architecture,event driven architecture,event-driven",
    "serverless|architecture|serverless functions",
    "feature-flags|devops|feature flags,feature flag,feature toggles",
    "blue-green-deployment|devops|blue-green deployment,blue/green deployment,blue-green deployments,blue green",
    "canary-releases|devops|canary releases,canary deployment,canary deployments,canary release",
    "trunk-based-development|devops|trunk-based development,trunk based development",
    "gitflow|devops|git flow,git-flow",
    "monorepo|devops|mono repo,mono-repo",
    "polyrepo|devops|multi-repo",
    "tdd|testing|test-driven development,test driven development",
    "bdd|testing|behavior-driven development",
    "property-based-testing|testing|property-based testing,property based testing",
    "snapshot-testing|testing|snapshot testing,snapshot tests",
    "integration-tests|testing|integration tests,integration testing",
    "unit-tests|testing|unit tests,unit testing",
    "e2e-tests|testing|end-to-end tests,e2e tests,e2e testing,end to end tests",
    "mocking|testing|mocks,stubs",
    "ci/cd|devops|ci!u,ci cd,cicd,continuous integration,continuous deployment,continuous delivery",
    "infrastructure-as-code|devops|infrastructure as code,iac!u",
    "gitops|devops|git ops",
    "cache-aside|caching|cache aside,lazy caching",
    "write-through-cache|caching|write-through,write through cache",
    "caching|caching|cache layer,caching layer",
    "memoization|performance|memoize",
    "lazy-loading|performance|lazy loading,lazy load",
    "code-splitting|performance|code splitting",
    "server-side-rendering|frontend|server-side rendering,server side rendering,ssr",
    "static-site-generation|frontend|static site generation,ssg!u",
    "incremental-static-regeneration|frontend|isr!u,incremental static regeneration",
    "client-side-rendering|frontend|client-side rendering,csr!u",
    "single-page-app|frontend|spa!u,single page app,single-page application,single page application",
    "pwa|frontend|progressive web app",
    "server-components|frontend|server components,react server components,rsc",
    "optimistic-updates|frontend|optimistic updates,optimistic ui",
    "optimistic-locking|database|optimistic locking,optimistic concurrency",
    "pessimistic-locking|database|pessimistic locking,row locks",
    "sharding|database|shards,database sharding",
    "read-replicas|database|read replicas,read replica",
    "connection-pooling|database|connection pooling,connection pool,pgbouncer",
    "denormalization|database|denormalize",
    "soft-deletes|database|soft deletes,soft delete",
    "database-migrations|database|database migrations,schema migrations,migrations",
    "indexes|database|database indexes,btree index,gin index",
    "transactions|database|database transactions,acid!u",
    "full-text-search|search|full-text search,full text search,fts",
    "vector-search|search|vector search,similarity search,semantic search,vector support",
    "semver|devops|semantic versioning",
    "conventional-commits|devops|conventional commits",
    "code-review|devops|code review,code reviews",
    "twelve-factor-app|architecture|twelve-factor,12-factor,12 factor app",
    "functional-programming|language|functional programming",
    "oop|language|object-oriented programming,object oriented programming",
    "composition|language|composition over inheritance,object composition",
    "inheritance|language|class inheritance",
    "immutability|language|immutable data",
    "pure-functions|language|pure functions,pure function",
    "static-typing|language|static typing,static types",
    "dynamic-typing|language|dynamic typing",
    "error-handling|language|error handling",
    "structured-logging|observability|structured logging,structured logs,json logs",
    "distributed-tracing|observability|distributed tracing,tracing",
    "health-checks|observability|health checks,health check",
    "input-validation|security|input validation,validate input,validating input",
    "least-privilege|security|least privilege,principle of least privilege",
    "secrets-management|security|secrets management,secret management",
    "encryption-at-rest|security|encryption at rest",
    "api-versioning|api|api versioning,versioned api",
    "api-gateway|api|api gateway",
    "backend-for-frontend|architecture|bff!u,backend for frontend",
    "message-queue|messaging|message queue,message queues,job queue,task queue",
    "background-jobs|jobs|background jobs,background workers,worker queue",
    "cron-jobs|jobs|cron jobs,cron job,cron",
    "websocket-push|api|realtime updates,real-time updates",
    "polling|api|long polling,short polling",
    "batching|performance|batch processing,request batching",
    "streaming|performance|stream processing",
    "pagination|api|paginate,paging",
    "dark-mode|frontend|dark mode",
    "accessibility|frontend|a11y",
    "internationalization|frontend|i18n,localization,l10n",
    "design-system|frontend|design system,component library",
    "atomic-design|frontend|atomic design",
    "barrel-files|language|barrel files,barrel file,index barrels",
    "named-exports|language|named exports,named export",
    "default-exports|language|default exports,default export",
    "react-hooks|frontend|react hooks,hooks api",
    "class-components|frontend|class components",
    "functional-components|frontend|functional components,function components",
      ],
  [L]: [
    "git|vcs",
    "github|vcs",
    "gitlab|vcs",
    "bitbucket|vcs",
    "github actions|ci|gh actions,github workflows",
    "gitlab ci|ci|gitlab-ci,gitlab pipelines",
    "jenkins!c|ci",
    "circleci|ci|circle ci",
    "travis ci|ci|travis-ci,travisci",
    "buildkite|ci",
    "argo cd|ci|argocd,argo-cd",
    "flux!c|ci|fluxcd",
    "tekton|ci",
    "npm|package-manager",
    "pnpm|package-manager",
    "yarn|package-manager|yarn berry,yarn classic",
    "pip|package-manager|pip3",
    "poetry!c|package-manager|python poetry",
    "uv|package-manager|astral uv",
    "pipenv|package-manager",
    "conda|package-manager|anaconda,miniconda",
    "cargo!c|package-manager",
    "maven!c|build|apache maven",
    "gradle|build",
    "xcode|build",
    "release-please|ci",
    "safari!c|browser|mobile safari",
    "chrome!c|browser|google chrome",
    "bazel|build",
    "make!c!v|build|makefile,makefiles,gnu make",
    "cmake|build",
    "turborepo|build|turbo repo",
    "nx!c|build|nrwl nx",
    "lerna|build",
    "homebrew|package-manager|brew",
    "nix!c|package-manager|nixos,nix flakes",
    "eslint|lint|es lint",
    "flake8|lint",
    "pylint|lint",
    "isort|lint",
    "tox|testing",
    "nodemon|runtime",
    "prettier|lint",
    "biome!c|lint|biomejs",
    "ruff|lint",
    "black formatter|lint|psf black",
    "mypy|lint",
    "pyright|lint",
    "tsc|lint|typescript compiler",
    "husky!c|lint",
    "lint-staged|lint",
    "pre-commit|lint|pre-commit hooks,precommit",
    "renovate!c!v|dependencies|renovate bot,renovatebot",
    "dependabot|dependencies",
    "snyk|security",
    "trivy|security",
    "sonarqube|lint|sonar",
    "jira|project|atlassian jira",
    "notion!c|project",
    "slack!c|chat",
    "figma|design",
    "vs code|editor|vscode,visual studio code",
    "vim|editor",
    "neovim|editor|nvim",
    "emacs|editor",
    "intellij|editor|intellij idea,jetbrains",
    "cursor editor|editor|cursor ide",
    "github copilot|ai|copilot",
    "claude code|ai|claude-code",
    "postman|api|postman collection",
    "insomnia!c|api",
    "curl|networking",
    "jq|data",
    "tmux|terminal",
    "ripgrep|terminal",
    "fzf|terminal",
    "zsh|terminal|oh-my-zsh",
    "dotenv|config|env files",
    "direnv|config",
    "1password|security|1password cli,op cli",
    "mkdocs|docs",
    "docusaurus|docs",
    "sphinx!c|docs",
    "openapi generator|api|openapi-generator",
    "swagger ui|api",
    "wireshark|networking",
    "kubectl|infrastructure",
    "k9s|infrastructure",
    "minikube|infrastructure",
    "kind cluster|infrastructure|kind clusters",
    "localstack|cloud",
    "ngrok|networking",
    "mailhog|testing|mailpit",
    "pgadmin|database|pg admin",
    "dbeaver|database",
    "flyway|database",
    "liquibase|database",
      ],
};

// Parsed as a cold start of a command that captures or recalls needs its entries: plain
// indexOf and slice, no destructuring of split() arrays, which cost two to three times as much
// CPU in a cold process (the code runs before the JIT has warmed up).

function parseAlias(raw: string): VocabAlias {
  const s = raw.trim();
  const bang = s.indexOf("!");
  if (bang < 0) return { text: s, needsCapital: false, upper: false, verbLike: false, notBeforeTo: false, versionOnly: false };
  const flags = s.slice(bang);
  return {
    text: s.slice(0, bang),
    needsCapital: flags.includes("!c"),
    upper: flags.includes("!u"),
    verbLike: flags.includes("!v"),
    notBeforeTo: flags.includes("!t"),
    versionOnly: flags.includes("!n"),
  };
}

function parseLine(kind: EntityKind, line: string): VocabEntry {
  const bar1 = line.indexOf("|");
  const bar2 = bar1 < 0 ? -1 : line.indexOf("|", bar1 + 1);
  const main = parseAlias(bar1 < 0 ? line : line.slice(0, bar1));
  const category = bar1 < 0 ? "" : line.slice(bar1 + 1, bar2 < 0 ? line.length : bar2);
  const aliases = [main];
  for (let at = bar2 + 1; bar2 >= 0 && at <= line.length; ) {
    const comma = line.indexOf(",", at);
    const end = comma < 0 ? line.length : comma;
    const raw = line.slice(at, end);
    if (raw.trim()) aliases.push(parseAlias(raw));
    at = end + 1;
  }
  return { name: main.text.replaceAll(" ", "-"), kind, category, aliases };
}

/** The table's kinds in order, with where each one's lines start among all entries. */
const KINDS = Object.keys(TABLE) as EntityKind[];

/** Entries parsed so far, by position: a cold start parses only those its words name. */
const parsed: (VocabEntry | undefined)[] = [];
let all: readonly VocabEntry[] | undefined;

/**
 * The entry at a position of the table (kinds in order, then their lines), parsed on first use:
 * parsing all ~620 lines cost ~1 ms of every cold start that captures or recalls, which most
 * prompts (naming a product or two, or none) do not need.
 */
export function vocabularyEntryAt(i: number): VocabEntry | undefined {
  const had = parsed[i];
  if (had) return had;
  let at = i;
  for (const kind of KINDS) {
    const lines = TABLE[kind]!;
    if (at < lines.length) return (parsed[i] = parseLine(kind, lines[at]!));
    at -= lines.length;
  }
  return undefined;
}

/**
 * The entries of these categories, in the table's order (the same objects vocabularyEntryAt
 * gives): each line's category is read from its text (as parseLine reads it) and only the lines
 * that match are parsed. A kind trigger of recall ("worker", "the db") asks this on a cold hook,
 * where parsing every line for vocabulary() cost ~0.5 ms.
 */
export function vocabularyInCategories(categories: readonly string[]): VocabEntry[] {
  const out: VocabEntry[] = [];
  let i = 0;
  for (const kind of KINDS) {
    for (const line of TABLE[kind]!) {
      const bar1 = line.indexOf("|");
      if (bar1 >= 0) {
        const bar2 = line.indexOf("|", bar1 + 1);
        if (categories.includes(line.slice(bar1 + 1, bar2 < 0 ? line.length : bar2))) out.push(vocabularyEntryAt(i)!);
      } else if (categories.includes("")) out.push(vocabularyEntryAt(i)!);
      i++;
    }
  }
  return out;
}

/** How many entries have been parsed in this process (for tests: a cold path parses only what it needs). */
export function parsedEntryCount(): number {
  let n = 0;
  for (const e of parsed) if (e) n++;
  return n;
}

/** Every entry, in the table's order (the same objects vocabularyEntryAt gives). */
export function vocabulary(): readonly VocabEntry[] {
  if (all) return all;
  const out: VocabEntry[] = [];
  for (let i = 0, e = vocabularyEntryAt(0); e; e = vocabularyEntryAt(++i)) out.push(e);
  return (all = out);
}

/** The table as one text (its kinds in order, then their lines): what a prebuilt alias index was made from. */
export function vocabularySource(): string {
  let out = "";
  for (const kind of KINDS) out += `${kind}\n${TABLE[kind]!.join("\n")}\n`;
  return out;
}
