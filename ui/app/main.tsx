/** @jsxImportSource preact */
// The browser entry point: mounts the app.
import { render } from 'preact';
import { App } from './app.tsx';
import './style.css';
import './panels.css';

render(<App />, document.getElementById('app')!);
