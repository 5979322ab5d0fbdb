"""The smallest agent server project `cpctl deploy push` ships: one graph, one node.

agent.json names the graph (`agent`), requirements.txt its one dependency. The README pushes
this directory as `weather-agent`; the emulator only packs and "builds" it, a hosted control
plane builds and serves it.
"""

from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    city: str
    forecast: str


def forecast(state: State) -> dict:
    return {"forecast": f"Sunny in {state['city']}, as it always is on the emulator."}


builder = StateGraph(State)
builder.add_node("forecast", forecast)
builder.add_edge(START, "forecast")
builder.add_edge("forecast", END)
graph = builder.compile()
