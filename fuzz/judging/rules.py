"""What the harness checks: each rule with a stable id, a level, a title and its spec sentence.

A rule also carries the facts the rest of the harness asks about it.
It says which case kind judges it.
It says what must have happened for "no violation" to mean something.
It says under which revisions it applies, and how it behaves in a sequence.
Nothing else keeps lists of rule ids; everything else reads them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from strategies import CaseKind


class Level(Enum):
    """How binding a rule is, most binding first."""

    MUST = "must"
    SHOULD = "should"
    ADVISORY = "advisory"

    @property
    def label(self) -> str:
        text: str = self.value
        return text.upper() if self is not Level.ADVISORY else text

    def at_least(self, threshold: Level) -> bool:
        """True when this level is as binding as `threshold`, or more."""
        order = list(Level)
        return order.index(self) <= order.index(threshold)


class Evidence(Enum):
    """What must have happened on a tool before "no violation" of a rule means anything.

    A tool that refuses every call also refuses invalid arguments, for the wrong reason.
    The coverage report says such a rule was not exercised, and why.
    """

    AN_ANSWER_OF_ITS_KIND = "an answer to a case of the kind that judges it"
    INVALID_BESIDE_A_SUCCESS = "an answer to invalid arguments, and a valid call that succeeded"
    STRUCTURED_OUTPUT = "structured output checked against an outputSchema"
    THE_LISTING = "the tools/list answer"
    A_TOOL_ERROR = "a tool execution error"
    A_PROTOCOL_ERROR = "a JSON-RPC error"
    AN_ERROR = "an error of either kind"
    ANY_ANSWER = "any answer"


class Revisions(Enum):
    """Under which revisions, and over which transport, a rule is judged."""

    EVERY = "every revision"
    STATELESS = "2026-07-28"
    STATELESS_OVER_HTTP = "2026-07-28 over Streamable HTTP"
    TASKS = "a server that takes tasks for tools/call (2025-11-25, or the 2026-07-28 extension)"
    TASKS_AUGMENTED = "2025-11-25, on a server that takes tasks for tools/call"
    TASKS_EXTENSION = "2026-07-28, on a server with the tasks extension"


@dataclass(frozen=True, slots=True, eq=False)
class Rule:
    """One requirement, with its id, level, title and source.

    Two rules are the same rule when their ids are.
    A profile may restate a rule with another level or another sentence.
    It stays that rule."""

    id: str
    level: Level
    title: str
    source: str
    """Where the requirement is written, and its sentence."""
    judged_on: CaseKind | None = None
    """The one case kind whose answers judge this rule.

    None when any kind's answers may."""
    evidence: Evidence = Evidence.ANY_ANSWER
    unjudged: str = "no tool got the cases it judges"
    """Why no tool could be judged by this rule at all, in the coverage report's words."""
    revisions: Revisions = Revisions.EVERY
    about_the_request: bool = False
    """A violation of the request itself, whatever came before it.

    Examples are an unanswered request, or the target gone.
    It ends a sequence, and blames the one request, not the steps."""
    depends_on_state: bool = False
    """A violation a server's state could explain.

    It is checked again on a fresh target."""
    in_sequences: bool = True
    """Whether a sequence's calls are judged by it.

    The listing's rules do not judge them."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rule) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def as_json(self) -> dict[str, str]:
        return {"id": self.id, "level": self.level.label, "title": self.title, "source": self.source}


_SEP = "SEP-2145"

UNKNOWN_TOOL = Rule(
    "unknown-tool",
    Level.MUST,
    "a call naming no listed tool gets a tool execution error",
    f"{_SEP}: servers MUST report tool resolution failures as Tool Execution Errors, including Unknown tool: params.name does not match any callable tool.",
    judged_on=CaseKind.UNKNOWN_TOOL,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
)
INVALID_ARGUMENTS = Rule(
    "invalid-arguments",
    Level.MUST,
    "arguments that violate the inputSchema do not get a JSON-RPC error",
    f"{_SEP}: servers MUST report tool input validation failures as Tool Execution Errors. This "
    "includes failures of JSON Schema validation against the tool's inputSchema.",
    judged_on=CaseKind.INVALID_ARGUMENTS,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    depends_on_state=True,
)
ARGUMENTS_NOT_VALIDATED = Rule(
    "arguments-not-validated",
    Level.SHOULD,
    "arguments that violate the inputSchema are not accepted as a success",
    f'{_SEP} has no sentence of this level; it follows from its MUST "servers MUST report tool input '
    "validation failures as Tool Execution Errors. This includes failures of JSON Schema validation against "
    "the tool's inputSchema\": a success for arguments the inputSchema rejects means the validation never ran "
    "or let them through. The SEP says how a detected failure is reported, not that a server must detect every "
    "one (it may accept more than it declares), hence SHOULD: validate arguments against the declared inputSchema.",
    judged_on=CaseKind.INVALID_ARGUMENTS,
    evidence=Evidence.INVALID_BESIDE_A_SUCCESS,
    depends_on_state=True,
)
TOOL_FAILURE = Rule(
    "tool-failure",
    Level.MUST,
    "a call to a listed tool with valid arguments never gets a JSON-RPC error",
    f"{_SEP}: servers MUST report tool execution failures as Tool Execution Errors, including exceptions thrown by the tool implementation.",
    judged_on=CaseKind.VALID_ARGUMENTS,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    depends_on_state=True,
)
MALFORMED_REQUEST = Rule(
    "malformed-request",
    Level.MUST,
    "a request that fails the CallToolRequest schema gets a JSON-RPC error",
    f"{_SEP}: if the request is invalid at the CallToolRequest schema level (e.g., missing "
    "params.name, invalid params type, etc.), the server returns a JSON-RPC error response.",
    judged_on=CaseKind.MALFORMED_REQUEST,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
)
MALFORMED_REQUEST_CODE = Rule(
    "malformed-request-code",
    Level.SHOULD,
    "the JSON-RPC error for a malformed request has code -32602",
    f"{_SEP} (example 'Protocol error (malformed request)'): code -32602, \"Invalid params\"; "
    "JSON-RPC 2.0: -32602 Invalid params, invalid method parameter(s).",
    judged_on=CaseKind.MALFORMED_REQUEST,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
)
REQUEST_ANSWERED = Rule(
    "request-answered",
    Level.MUST,
    "every request gets an answer within the timeout",
    "JSON-RPC 2.0: when a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.",
    about_the_request=True,
)
RESPONSE_WELL_FORMED = Rule(
    "response-well-formed",
    Level.MUST,
    "every answer is JSON-RPC 2.0 with the request's id, and a tools/call result is a CallToolResult",
    'JSON-RPC 2.0: jsonrpc MUST be exactly "2.0"; id MUST be the same as the value of the id '
    f"member in the Request Object. {_SEP}: a Tool Execution Error is a successful JSON-RPC "
    "response containing a CallToolResult.",
)
TARGET_ALIVE = Rule(
    "target-alive",
    Level.MUST,
    "the target neither exits nor stops answering ping (server/discover under 2026-07-28, which has no ping)",
    "MCP basic/utilities/ping: the receiver MUST respond promptly with an empty response; MCP 2026-07-28, "
    "basic/versioning: servers MUST implement server/discover. "
    f"{_SEP}: exceptions thrown by the tool implementation MUST be reported as Tool Execution Errors.",
    about_the_request=True,
)

UNAVAILABLE_TOOL = Rule(
    "unavailable-tool",
    Level.MUST,
    "a call to a tool the server must refuse (--unavailable) gets a tool execution error",
    f"{_SEP}: servers MUST report tool resolution failures as Tool Execution Errors, including "
    "Tool not callable: the tool exists conceptually but cannot be executed (e.g., disabled, "
    "unavailable, policy-restricted).",
    judged_on=CaseKind.UNAVAILABLE_TOOL,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    unjudged="no tool was named with --unavailable",
)
OUTPUT_SCHEMA = Rule(
    "output-schema",
    Level.SHOULD,
    "structured output conforms to the outputSchema, or its failure is a tool execution error",
    f"{_SEP}: servers SHOULD report output validation failures as Tool Execution Errors when a tool "
    "declares an outputSchema, including: structuredContent is missing; structuredContent does "
    "not conform to outputSchema; structuredContent is not an object.",
    evidence=Evidence.STRUCTURED_OUTPUT,
    unjudged="no tool declares an outputSchema, and no --mirror-tool was given",
)
ERROR_MESSAGE = Rule(
    "error-message",
    Level.ADVISORY,
    "a tool execution error's first content item is a non-empty text block",
    f"{_SEP} (non-normative): when returning Tool Execution Errors, servers SHOULD include a short, "
    "actionable message in the first content item (typically a text content block).",
    evidence=Evidence.A_TOOL_ERROR,
)
TOOL_LIST_LEAK = Rule(
    "tool-list-leak",
    Level.ADVISORY,
    "an unknown-tool error does not enumerate the other tools",
    f"{_SEP} (security): implementations should avoid enumerating available tool names in error text unless appropriate.",
    judged_on=CaseKind.UNKNOWN_TOOL,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
)
INTERNAL_DETAILS_LEAK = Rule(
    "internal-details-leak",
    Level.ADVISORY,
    "error text carries no stack trace or traceback",
    f"{_SEP} (security): servers SHOULD provide user-appropriate, least-privilege error text.",
    evidence=Evidence.AN_ERROR,
)
ERROR_AS_SUCCESS = Rule(
    "error-as-success",
    Level.ADVISORY,
    "a call that failed is not answered as a success whose text or JSON says it failed",
    f"{_SEP}, Error Handling: Tool Execution Errors: Reported in tool results with `isError: true`: ... API "
    "failures, Business logic errors. (Advisory here: the failure is read from the result's own text or JSON, "
    "see fuzz.judging._dressed_errors.)",
    depends_on_state=True,
)
STDOUT_NOT_PROTOCOL = Rule(
    "stdout-not-protocol",
    Level.ADVISORY,
    "everything a stdio server writes on stdout is a JSON-RPC message",
    "MCP basic/transports (stdio): the server MUST NOT write anything to its stdout that is not "
    "a valid MCP message. (The harness skips such lines and goes on; a client may not.)",
)

TOOL_NAME = Rule(
    "tool-name",
    Level.ADVISORY,
    "every listed tool name is 1 to 128 characters of A-Z, a-z, 0-9, _, - and ., listed once",
    "MCP 2025-11-25 (and later), server/tools, Tool Names: Tool names SHOULD be between 1 and 128 characters in "
    "length (inclusive). Tool names SHOULD be considered case-sensitive. The following SHOULD be the only allowed "
    "characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and "
    "dot (.) Tool names SHOULD NOT contain spaces, commas, or other special characters. Tool names SHOULD be unique "
    "within a server. (Advisory here: a naming guideline, judged on the tools/list answer; the published profile "
    "judges it from 2025-11-25 on, sep-2145 under every revision. Names that differ only in case are distinct.)",
    judged_on=CaseKind.TOOL_LISTING,
    evidence=Evidence.THE_LISTING,
    unjudged="no listed tool was in the run",
    in_sequences=False,
)

_STATELESS = "MCP 2026-07-28"
_ONLY_STATELESS = "it is judged only under the stateless revision (2026-07-28)"

MALFORMED_META = Rule(
    "malformed-meta",
    Level.MUST,
    "a request whose _meta envelope is missing or malformed gets JSON-RPC error -32602 (HTTP 400)",
    f"{_STATELESS}, basic (Per-request protocol fields): a request missing any required field is malformed; "
    "the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response status "
    "MUST be 400 Bad Request.",
    judged_on=CaseKind.MALFORMED_META,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    revisions=Revisions.STATELESS,
    unjudged=_ONLY_STATELESS,
)
UNSUPPORTED_VERSION = Rule(
    "unsupported-version",
    Level.MUST,
    "a request naming a revision the server does not speak gets -32022 listing the supported ones (HTTP 400)",
    f"{_STATELESS}, basic/versioning (Protocol Version Negotiation): if the server does not implement the "
    "requested version, it MUST respond with an UnsupportedProtocolVersionError listing the versions it does "
    "support (code -32022, data.supported and data.requested); transports/streamable-http: it MUST respond with "
    "400 Bad Request.",
    judged_on=CaseKind.UNSUPPORTED_VERSION,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    revisions=Revisions.STATELESS,
    unjudged=_ONLY_STATELESS,
)
HEADER_MISMATCH = Rule(
    "header-mismatch",
    Level.MUST,
    "a request whose HTTP headers disagree with its body gets -32020 with HTTP 400",
    f"{_STATELESS}, transports/streamable-http (Server Validation): servers that process the request body MUST "
    "reject requests where the values specified in the headers do not match the corresponding values in the "
    "request body; when rejecting a request due to header validation failure, servers MUST return HTTP status "
    "400 Bad Request and MUST include a JSON-RPC error response using the error code -32020 (HeaderMismatch).",
    judged_on=CaseKind.HEADER_MISMATCH,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    revisions=Revisions.STATELESS_OVER_HTTP,
    unjudged=_ONLY_STATELESS + " over Streamable HTTP",
)
RESERVED_ERROR_CODE = Rule(
    "reserved-error-code",
    Level.MUST,
    "no JSON-RPC error code of MCP's reserved range (-32020 to -32099) that the revision does not define, nor a retired one",
    f"{_STATELESS}, basic (Error Codes): error codes in the sub-range -32020 to -32099 are defined exclusively by the "
    "MCP specification; implementations MUST NOT emit any code from this sub-range that is not defined by this "
    "specification. Codes defined by earlier protocol versions remain reserved: implementations of this protocol "
    "version MUST NOT emit -32002 (resource not found) or -32042 (URL elicitation required).",
    evidence=Evidence.A_PROTOCOL_ERROR,
    revisions=Revisions.STATELESS,
    unjudged=_ONLY_STATELESS,
)

_MRTR = f"{_STATELESS}, basic/patterns/mrtr"

INPUT_REQUEST_UNDECLARED = Rule(
    "input-request-undeclared",
    Level.MUST,
    "no input request for a capability the call did not declare",
    f"{_MRTR} (Server Requirements): servers MUST NOT send an inputRequests that the client has not declared support "
    "for in its capabilities. For example, if a client does not declare support for elicitation, the server MUST NOT "
    "include any elicitation/create requests in the inputRequests field.",
    revisions=Revisions.STATELESS,
    unjudged=_ONLY_STATELESS,
)
INPUT_RESPONSES_VALIDATED = Rule(
    "input-responses-validated",
    Level.SHOULD,
    "a retry whose inputResponses is not an InputResponses object gets a JSON-RPC error, or the input asked again",
    f"{_MRTR} (Error Handling): servers SHOULD validate that the data provided by the client is a valid InputResponses "
    "object and that the information inside can be correctly parsed. Protocol errors (malformed JSON, invalid schema, "
    "internal server errors) SHOULD return a JSON-RPC error response with an appropriate error code and message.",
    judged_on=CaseKind.INVALID_INPUT_RESPONSE,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    revisions=Revisions.STATELESS,
    unjudged="no tool asked for input (resultType input_required), or it is judged only under the stateless revision (2026-07-28)",
)
REQUEST_STATE_VERIFIED = Rule(
    "request-state-verified",
    Level.MUST,
    "a retry whose requestState was tampered with or taken from another call does not change what the tool does",
    f"{_MRTR} (Server Requirements): servers MUST treat requestState as an attacker-controlled input. If requestState "
    "influences authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or "
    "AEAD) and MUST reject state that fails verification.",
    judged_on=CaseKind.REQUEST_STATE,
    revisions=Revisions.STATELESS,
    unjudged="no tool asked for input with a requestState, or the rounds phase was not chosen, or it is judged only under 2026-07-28",
)
REQUEST_STATE_BOUND = Rule(
    "request-state-bound",
    Level.SHOULD,
    "a retry carrying the requestState of a call with other arguments does not do what that call did",
    f"{_MRTR} (Server Requirements): to prevent replay, servers SHOULD include [...] an identifier for the originating "
    "request, e.g. the method name and a digest of its salient parameters, rejecting state presented on a request "
    "that does not match.",
    judged_on=CaseKind.REQUEST_STATE,
    revisions=Revisions.STATELESS,
    unjudged="no tool asked for input with a requestState, or the rounds phase was not chosen, or it is judged only under 2026-07-28",
)
CACHING_HINTS = Rule(
    "caching-hints",
    Level.MUST,
    "server/discover and tools/list results carry ttlMs (an integer >= 0) and cacheScope (public or private)",
    f"{_STATELESS}, server/utilities/caching: servers MUST include caching hints on results with resultType "
    '"complete" returned by server/discover, tools/list [...]. Servers MUST provide a ttlMs value that is >= 0. '
    'cacheScope indicates the intended scope of the cached response, either "public" or "private".',
    judged_on=CaseKind.TOOL_LISTING,
    evidence=Evidence.THE_LISTING,
    revisions=Revisions.STATELESS,
    unjudged="the rounds phase was not chosen, or it is judged only under the stateless revision (2026-07-28)",
    in_sequences=False,
)
TOOLS_LIST_ORDER = Rule(
    "tools-list-order",
    Level.SHOULD,
    "tools/list gives its tools in the same order on every call",
    f"{_STATELESS}, server/tools (Listing Tools): servers SHOULD return tools in a deterministic order (i.e., the same "
    "ordering across requests when the underlying set of tools has not changed).",
    judged_on=CaseKind.TOOL_LISTING,
    evidence=Evidence.THE_LISTING,
    revisions=Revisions.STATELESS,
    unjudged="the rounds phase was not chosen, or it is judged only under the stateless revision (2026-07-28)",
    in_sequences=False,
)

_TASKS = "MCP 2025-11-25, basic/utilities/tasks"
_TASKS_EXTENSION = "SEP-2663 (the tasks extension io.modelcontextprotocol/tasks, 2026-07-28)"
_NO_TASKS = "the server takes no tasks for tools/call"

TASK_REQUIRED = Rule(
    "task-required",
    Level.MUST,
    "a call without a task to a tool that requires one gets -32601",
    f'{_TASKS}, Tool-Level Negotiation: if execution.taskSupport is "required", clients MUST invoke the tool as a '
    "task. Servers MUST return a -32601 (Method not found) error if a client does not attempt to do so.",
    judged_on=CaseKind.CALL_WITHOUT_TASK,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    revisions=Revisions.TASKS_AUGMENTED,
    unjudged="no tool the cases may run declares execution.taskSupport required on a server that takes tasks (2025-11-25)",
)
TASK_FORBIDDEN = Rule(
    "task-forbidden",
    Level.SHOULD,
    "a call as a task to a tool that forbids tasks gets -32601",
    f'{_TASKS}, Tool-Level Negotiation: if execution.taskSupport is not present or "forbidden", clients MUST NOT '
    "attempt to invoke the tool as a task. Servers SHOULD return a -32601 (Method not found) error if a client "
    "attempts to do so.",
    judged_on=CaseKind.TASK_FOR_FORBIDDEN,
    evidence=Evidence.AN_ANSWER_OF_ITS_KIND,
    revisions=Revisions.TASKS_AUGMENTED,
    unjudged="no tool the cases may run forbids tasks on a server that takes them (2025-11-25)",
)
TASK_LIFECYCLE = Rule(
    "task-lifecycle",
    Level.MUST,
    "a task a call created can be polled to its end, in the shapes the revision defines",
    f"{_TASKS}, Behavior Requirements: receivers that accept a task-augmented request MUST return a CreateTaskResult "
    "as the response; tasks MUST begin in the working status; receivers MUST include createdAt and lastUpdatedAt in "
    f"all task responses, and the actual ttl in tasks/get responses. {_TASKS_EXTENSION}, Task Polling: a server MUST "
    "NOT return CreateTaskResult until a tasks/get for the returned taskId would resolve; if the status is completed, "
    "the server MUST return a Task with a result field; if failed, with the error that occurred.",
    revisions=Revisions.TASKS,
    unjudged=_NO_TASKS,
)
TASK_RELATED_META = Rule(
    "task-related-meta",
    Level.MUST,
    "tasks/result's result names its task in _meta",
    f"{_TASKS}, Associating Task-Related Messages: all requests, notifications, and responses related to a task "
    "MUST include the io.modelcontextprotocol/related-task key in their _meta field, with the value set to an "
    "object with a taskId matching the associated task ID.",
    revisions=Revisions.TASKS_AUGMENTED,
    unjudged=_NO_TASKS,
)
TASK_FAILED_ON_TOOL_ERROR = Rule(
    "task-failed-on-tool-error",
    Level.SHOULD,
    "a task whose tool result is an error ends failed (2025-11-25)",
    f"{_TASKS}, Task Execution Errors: for tasks that wrap tool call requests, when the tool result has isError "
    "set to true, the task should reach failed status.",
    evidence=Evidence.A_TOOL_ERROR,
    revisions=Revisions.TASKS_AUGMENTED,
    unjudged=_NO_TASKS,
)
TASK_COMPLETED_ON_TOOL_ERROR = Rule(
    "task-completed-on-tool-error",
    Level.MUST,
    "a task whose tool result is an error ends completed, never failed (2026-07-28)",
    f"{_TASKS_EXTENSION}, Task Status: completed: the request completed successfully and results are available "
    "in the result field. This includes tool calls that returned results with isError: true. failed: the request "
    "failed due to a JSON-RPC error during execution. This status MUST NOT be used for non-JSON-RPC errors.",
    evidence=Evidence.A_TOOL_ERROR,
    revisions=Revisions.TASKS_EXTENSION,
    unjudged=_NO_TASKS,
)

_NO_TASK_PHASE = "the server takes no tasks for tools/call, or the task phase was not chosen"

TASK_UNKNOWN_ID = Rule(
    "task-unknown-id",
    Level.MUST,
    "a task method naming a task id no task has gets -32602",
    f"{_TASKS}, Error Handling: receivers MUST return standard JSON-RPC errors for ... invalid or nonexistent taskId "
    f"in tasks/get, tasks/result, or tasks/cancel: -32602 (Invalid params). {_TASKS_EXTENSION}, Error Handling: "
    "invalid or nonexistent taskId: -32602 (Invalid params). Servers MUST return this error for tasks/get.",
    judged_on=CaseKind.TASK_METHOD,
    revisions=Revisions.TASKS,
    unjudged=_NO_TASK_PHASE,
)
TASK_CANCEL_TERMINAL = Rule(
    "task-cancel-terminal",
    Level.MUST,
    "tasks/cancel of a task that has ended gets -32602",
    f"{_TASKS}, Task Cancellation: receivers MUST reject cancellation requests for tasks already in a terminal status "
    "(completed, failed, or cancelled) with error code -32602 (Invalid params).",
    judged_on=CaseKind.TASK_METHOD,
    revisions=Revisions.TASKS_AUGMENTED,
    unjudged=_NO_TASK_PHASE,
)
TASK_TERMINAL_KEPT = Rule(
    "task-terminal-kept",
    Level.MUST,
    "a task that has ended keeps its status; a cancelled one stays cancelled",
    f"{_TASKS}, Task Status Lifecycle: tasks with a completed, failed, or cancelled status are in a terminal state and "
    "MUST NOT transition to any other status. Task Cancellation: once a task is cancelled, it MUST remain in cancelled "
    "status even if execution continues to completion or fails.",
    judged_on=CaseKind.TASK_METHOD,
    revisions=Revisions.TASKS_AUGMENTED,
    unjudged=_NO_TASK_PHASE,
)
TASK_LISTED = Rule(
    "task-listed",
    Level.MUST,
    "tasks/list holds every task tasks/get finds",
    f"{_TASKS}, Task Listing: if a task is retrievable via tasks/get for a requestor, it MUST be retrievable via tasks/list for that requestor.",
    judged_on=CaseKind.TASK_METHOD,
    revisions=Revisions.TASKS_AUGMENTED,
    unjudged="the server declares no tasks.list, or no tasks for tools/call, or the task phase was not chosen",
)

RULES: tuple[Rule, ...] = (
    UNKNOWN_TOOL,
    INVALID_ARGUMENTS,
    ARGUMENTS_NOT_VALIDATED,
    TOOL_FAILURE,
    MALFORMED_REQUEST,
    MALFORMED_REQUEST_CODE,
    REQUEST_ANSWERED,
    RESPONSE_WELL_FORMED,
    TARGET_ALIVE,
    UNAVAILABLE_TOOL,
    OUTPUT_SCHEMA,
    ERROR_MESSAGE,
    TOOL_LIST_LEAK,
    INTERNAL_DETAILS_LEAK,
    ERROR_AS_SUCCESS,
    STDOUT_NOT_PROTOCOL,
    TOOL_NAME,
    MALFORMED_META,
    UNSUPPORTED_VERSION,
    HEADER_MISMATCH,
    RESERVED_ERROR_CODE,
    INPUT_REQUEST_UNDECLARED,
    INPUT_RESPONSES_VALIDATED,
    REQUEST_STATE_VERIFIED,
    REQUEST_STATE_BOUND,
    CACHING_HINTS,
    TOOLS_LIST_ORDER,
    TASK_REQUIRED,
    TASK_FORBIDDEN,
    TASK_LIFECYCLE,
    TASK_RELATED_META,
    TASK_FAILED_ON_TOOL_ERROR,
    TASK_COMPLETED_ON_TOOL_ERROR,
    TASK_UNKNOWN_ID,
    TASK_CANCEL_TERMINAL,
    TASK_TERMINAL_KEPT,
    TASK_LISTED,
)
RULES_BY_ID = {rule.id: rule for rule in RULES}
