import { createRoot } from "react-dom/client";

function App() {
  return <div className="p-4 text-sm bg-sidebar">PBX Console</div>;
}

createRoot(document.getElementById("root") as HTMLElement).render(<App />);
