// Builds the front-end scripts with @wordpress/scripts. WooCommerce's dependency extraction turns
// the @wordpress/* and @woocommerce/* imports into script dependencies (build/<name>.asset.php).
// The output folder is build/ unless CRYPTOCHECKOUT_WC_BUILD_DIR names another (scripts/build.mjs
// sets it to stage the plugin outside the working copy).
const path = require('node:path');
const defaultConfig = require('@wordpress/scripts/config/webpack.config');
const WooCommerceDependencyExtractionWebpackPlugin = require('@woocommerce/dependency-extraction-webpack-plugin');

module.exports = {
  ...defaultConfig,
  entry: {
    blocks: './assets/src/blocks.ts',
    'admin-settings': './assets/src/admin-settings.ts',
    thankyou: './assets/src/thankyou.ts',
  },
  output: {
    ...defaultConfig.output,
    path: path.resolve(__dirname, process.env.CRYPTOCHECKOUT_WC_BUILD_DIR || 'build'),
    clean: false,
  },
  devtool: false,
  resolve: {
    ...defaultConfig.resolve,
    // Workspace packages are compiled from their TypeScript sources ("source" export condition).
    conditionNames: ['source', 'import', 'browser', 'default'],
    extensionAlias: { '.js': ['.ts', '.js'] },
  },
  plugins: [
    ...defaultConfig.plugins.filter(
      (plugin) => plugin.constructor.name !== 'DependencyExtractionWebpackPlugin',
    ),
    new WooCommerceDependencyExtractionWebpackPlugin(),
  ],
};
