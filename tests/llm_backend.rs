//! The OpenAI-compatible backend against a local fake server: request shape,
//! lenient reply parsing, retries, timeouts, connection errors, key rule.

mod support;

use attentive::config::LlmSettings;
use attentive::llm::{
    AssistantReply, ChatBackend, ChatMessage, ChatRequest, LlmError, OpenAiCompatible, ToolCall,
    ToolSchema, Usage,
};
use serde_json::json;
use support::fake_llm::{completion, FakeLlm, Scripted};

/// Settings for the fake server: no key variable, short backoff.
fn settings(fake: &FakeLlm) -> LlmSettings {
    LlmSettings {
        base_url: Some(fake.base_url()),
        model: "fake-model".into(),
        api_key_env: "ATTENTIVE_TEST_LLM_KEY_NEVER_SET".into(),
        request_timeout_s: 5.0,
        retries: 2,
        backoff_initial_ms: 10,
        ..LlmSettings::default()
    }
}

fn backend(settings: &LlmSettings) -> OpenAiCompatible {
    OpenAiCompatible::from_settings(settings).unwrap()
}

fn tools() -> Vec<ToolSchema> {
    vec![
        ToolSchema {
            name: "speak".into(),
            description: "Say something to a person.".into(),
            parameters: json!({"type": "object", "properties": {"to": {"type": "string"}, "text": {"type": "string"}}, "required": ["to", "text"]}),
        },
        ToolSchema {
            name: "stop".into(),
            description: "End the turn.".into(),
            parameters: json!({"type": "object", "properties": {}}),
        },
    ]
}

fn conversation() -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::System {
                content: "You are a helpful robot.".into(),
            },
            ChatMessage::User {
                content: "Felix said to Daniel: pass me the cola".into(),
            },
            ChatMessage::Assistant {
                content: None,
                tool_calls: vec![ToolCall {
                    id: "call_7".into(),
                    name: "check_hindering_reasons".into(),
                    arguments: "{\"person\":\"Daniel\",\"object\":\"cola\"}".into(),
                }],
            },
            ChatMessage::Tool {
                call_id: "call_7".into(),
                content: "Daniel is busy.".into(),
            },
        ],
        tools: tools(),
    }
}

fn simple() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::User {
            content: "hello".into(),
        }],
        tools: vec![],
    }
}

#[tokio::test]
async fn request_carries_system_tools_history_and_settings() {
    let fake = FakeLlm::start(vec![Scripted::text("ok")]).await;
    let mut s = settings(&fake);
    s.tool_choice = Some("required".into());
    s.parallel_tool_calls = Some(false);
    s.temperature = 0.5;
    let reply = backend(&s).complete(&conversation()).await.unwrap();
    assert_eq!(reply.content.as_deref(), Some("ok"));

    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    // Local server and no key variable: a placeholder, never a real key.
    assert_eq!(requests[0].header("authorization"), Some("Bearer no-key"));
    let body = &requests[0].body;
    assert_eq!(body["model"], "fake-model");
    assert_eq!(body["temperature"], 0.5);
    assert_eq!(body["seed"], 42);
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["stream"], false);
    assert_eq!(body["tool_choice"], "required");
    assert_eq!(body["parallel_tool_calls"], false);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(
        messages[0],
        json!({"role": "system", "content": "You are a helpful robot."})
    );
    assert_eq!(messages[1]["role"], "user");
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["content"], serde_json::Value::Null);
    assert_eq!(
        messages[2]["tool_calls"],
        json!([{"id": "call_7", "type": "function", "function": {
            "name": "check_hindering_reasons", "arguments": "{\"person\":\"Daniel\",\"object\":\"cola\"}"}}])
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_7", "content": "Daniel is busy."})
    );
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["type"], "function");
    assert_eq!(tools[0]["function"]["name"], "speak");
    assert_eq!(
        tools[0]["function"]["parameters"]["required"],
        json!(["to", "text"])
    );
}

#[tokio::test]
async fn without_tools_no_tool_fields_are_sent() {
    let fake = FakeLlm::start(vec![Scripted::text("hi")]).await;
    let mut s = settings(&fake);
    s.tool_choice = Some("auto".into());
    s.parallel_tool_calls = Some(true);
    s.seed = None;
    backend(&s).complete(&simple()).await.unwrap();
    let body = &fake.bodies()[0];
    for key in ["tools", "tool_choice", "parallel_tool_calls", "seed"] {
        assert!(body.get(key).is_none(), "{key} sent: {body}");
    }
    // An unset tool_choice is omitted even with tools; parallel calls are
    // asked for by default, and omitted when unset.
    let fake = FakeLlm::start(vec![Scripted::text("hi"), Scripted::text("hi")]).await;
    backend(&settings(&fake))
        .complete(&conversation())
        .await
        .unwrap();
    let mut unset = settings(&fake);
    unset.parallel_tool_calls = None;
    backend(&unset).complete(&conversation()).await.unwrap();
    let bodies = fake.bodies();
    assert!(bodies[0].get("tools").is_some());
    assert!(bodies[0].get("tool_choice").is_none());
    assert_eq!(bodies[0]["parallel_tool_calls"], true);
    assert!(bodies[1].get("parallel_tool_calls").is_none());
}

#[tokio::test]
async fn openai_reply_with_two_tool_calls_is_parsed() {
    let fake = FakeLlm::start(vec![Scripted::tool_calls(&[
        (
            "speak",
            json!({"to": "Felix", "text": "Daniel is busy, I will help."}),
        ),
        ("stop", json!({})),
    ])])
    .await;
    let reply = backend(&settings(&fake))
        .complete(&conversation())
        .await
        .unwrap();
    assert_eq!(
        reply,
        AssistantReply {
            content: None,
            tool_calls: vec![
                ToolCall {
                    id: "call_1".into(),
                    name: "speak".into(),
                    arguments: json!({"to": "Felix", "text": "Daniel is busy, I will help."})
                        .to_string(),
                },
                ToolCall {
                    id: "call_2".into(),
                    name: "stop".into(),
                    arguments: "{}".into(),
                },
            ],
            finish_reason: Some("tool_calls".into()),
            usage: Some(Usage {
                prompt_tokens: 12,
                completion_tokens: 3
            }),
        }
    );
}

#[tokio::test]
async fn llama_cpp_reply_is_accepted() {
    // No id, created, object, usage; finish_reason "eos"; arguments as an object;
    // tool calls without type or id; content missing.
    let body = json!({
        "model": "qwen2.5-1.5b",
        "choices": [{"index": 0, "finish_reason": "eos", "message": {"role": "assistant",
            "tool_calls": [
                {"function": {"name": "speak", "arguments": {"to": "Felix", "text": "hi"}}},
                {"function": {"name": "stop", "arguments": "{}"}}
            ]}}]
    });
    let fake = FakeLlm::start(vec![Scripted::ok(body)]).await;
    let reply = backend(&settings(&fake))
        .complete(&conversation())
        .await
        .unwrap();
    assert_eq!(reply.finish_reason.as_deref(), Some("eos"));
    assert_eq!(reply.usage, None);
    assert_eq!(reply.content, None);
    assert_eq!(reply.tool_calls.len(), 2);
    assert_eq!(reply.tool_calls[0].id, "call_0");
    assert_eq!(reply.tool_calls[1].id, "call_1");
    let args: serde_json::Value = serde_json::from_str(&reply.tool_calls[0].arguments).unwrap();
    assert_eq!(args, json!({"to": "Felix", "text": "hi"}));
}

#[tokio::test]
async fn server_error_then_success_is_retried() {
    let fake = FakeLlm::start(vec![
        Scripted::error(500, "overloaded"),
        Scripted::text("done"),
    ])
    .await;
    let reply = backend(&settings(&fake)).complete(&simple()).await.unwrap();
    assert_eq!(reply.content.as_deref(), Some("done"));
    assert_eq!(fake.request_count(), 2);
    assert_eq!(fake.bodies()[0], fake.bodies()[1]);
}

#[tokio::test]
async fn timeout_then_success_is_retried_by_our_policy() {
    // async-openai never retries a timeout itself: this retry is ours.
    let fake = FakeLlm::start(vec![Scripted::Hang, Scripted::text("late but fine")]).await;
    let mut s = settings(&fake);
    s.request_timeout_s = 0.5;
    s.retries = 1;
    let reply = backend(&s).complete(&simple()).await.unwrap();
    assert_eq!(reply.content.as_deref(), Some("late but fine"));
    assert_eq!(fake.request_count(), 2);
}

#[tokio::test]
async fn dropped_connection_is_retried() {
    let fake = FakeLlm::start(vec![Scripted::Close, Scripted::text("again")]).await;
    let mut s = settings(&fake);
    s.retries = 1;
    let reply = backend(&s).complete(&simple()).await.unwrap();
    assert_eq!(reply.content.as_deref(), Some("again"));
    assert_eq!(fake.request_count(), 2);
}

#[tokio::test]
async fn bad_request_is_not_retried() {
    let fake = FakeLlm::start(vec![
        Scripted::error(400, "unknown parameter: seed"),
        Scripted::text("must not be reached"),
    ])
    .await;
    let err = backend(&settings(&fake))
        .complete(&simple())
        .await
        .unwrap_err();
    match &err {
        LlmError::Http {
            status,
            body_excerpt,
        } => {
            assert_eq!(*status, 400);
            assert!(body_excerpt.contains("unknown parameter: seed"), "{err}");
        }
        other => panic!("expected Http 400, got {other:?}"),
    }
    assert!(!err.is_retryable());
    assert_eq!(fake.request_count(), 1);
}

#[tokio::test]
async fn llama_cpp_error_body_keeps_its_status_and_is_not_retried() {
    // llama.cpp sends an integer `code`, which async-openai cannot parse as an OpenAI error.
    let fake = FakeLlm::start(vec![Scripted::Json {
        status: 400,
        body: json!({"error": {"code": 400, "message": "the request exceeds the available context size", "type": "exceed_context_size_error"}}),
    }])
    .await;
    let err = backend(&settings(&fake))
        .complete(&simple())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, LlmError::Http { status: 400, body_excerpt } if body_excerpt.contains("context size")),
        "{err:?}"
    );
    assert_eq!(fake.request_count(), 1);
}

#[tokio::test]
async fn non_json_success_is_a_bad_response() {
    let fake = FakeLlm::start(vec![Scripted::Raw {
        status: 200,
        body: "<html>proxy login</html>".into(),
    }])
    .await;
    let err = backend(&settings(&fake))
        .complete(&simple())
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::BadResponse { .. }), "{err:?}");
    assert!(err.to_string().contains("proxy login"), "{err}");
    assert_eq!(fake.request_count(), 1);
}

#[tokio::test]
async fn hanging_server_gives_timeout() {
    let fake = FakeLlm::start(vec![Scripted::Hang]).await;
    let mut s = settings(&fake);
    s.request_timeout_s = 1.0;
    s.retries = 0;
    let err = backend(&s).complete(&simple()).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert!(err.to_string().contains("1.0 s"), "{err}");
    assert_eq!(fake.request_count(), 1);
}

#[tokio::test]
async fn dead_port_gives_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let s = LlmSettings {
        base_url: Some(format!("http://127.0.0.1:{port}/v1")),
        api_key_env: "ATTENTIVE_TEST_LLM_KEY_NEVER_SET".into(),
        retries: 0,
        request_timeout_s: 10.0,
        ..LlmSettings::default()
    };
    let err = backend(&s).complete(&simple()).await.unwrap_err();
    assert!(matches!(err, LlmError::Connect { .. }), "{err:?}");
    assert!(err.is_retryable());
    assert!(err.to_string().contains(&port.to_string()), "{err}");
}

#[tokio::test]
async fn persistent_server_errors_end_with_the_http_error() {
    // Bounded: our retries (1) times async-openai's own 429/5xx retries (up to 3).
    let fake = FakeLlm::start(vec![]).await;
    fake.set_fallback(Scripted::error(503, "model loading"));
    let mut s = settings(&fake);
    s.retries = 1;
    let err = backend(&s).complete(&simple()).await.unwrap_err();
    assert!(matches!(err, LlmError::Http { status: 503, .. }), "{err:?}");
    let n = fake.request_count();
    assert!((2..=8).contains(&n), "{n} requests");
}

#[test]
fn hosted_endpoint_without_key_is_refused_before_any_request() {
    let s = LlmSettings {
        base_url: Some("https://api.openai.com/v1".into()),
        api_key_env: "ATTENTIVE_TEST_LLM_KEY_NEVER_SET".into(),
        ..LlmSettings::default()
    };
    let err = OpenAiCompatible::from_settings(&s).unwrap_err();
    assert_eq!(
        err,
        LlmError::NoKey {
            var: "ATTENTIVE_TEST_LLM_KEY_NEVER_SET".into()
        }
    );
    assert!(err.to_string().contains("ATTENTIVE_TEST_LLM_KEY_NEVER_SET"));
    // Unset base URL means OpenAI: same rule.
    let s = LlmSettings {
        base_url: None,
        ..s
    };
    assert!(matches!(
        OpenAiCompatible::from_settings(&s),
        Err(LlmError::NoKey { .. })
    ));
}

#[test]
fn describe_names_model_and_url() {
    let s = LlmSettings {
        base_url: Some("http://localhost:8080/v1/".into()),
        model: "qwen".into(),
        api_key_env: "ATTENTIVE_TEST_LLM_KEY_NEVER_SET".into(),
        ..LlmSettings::default()
    };
    let b = OpenAiCompatible::from_settings(&s).unwrap();
    assert_eq!(b.describe(), "llm qwen at http://localhost:8080/v1");
    let _ = completion(json!({}), "stop");
}
